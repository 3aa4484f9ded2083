//! Background checking: after an edit, a save, a configuration or workspace change, check the
//! edited file first, then every open document, then the rest of the workspace, publishing each
//! file's leak diagnostics as it is done.
//!
//! - Each check gets a generation; a newer check supersedes (stops) older ones.
//! - A check of one file whose job an edit cancels retries on the new revision unless a newer
//!   check superseded it.
//! - Diagnostics are published under one lock, and only when the revision they were computed on
//!   is still the latest: stale results are never published over fresher ones.

use super::analysis::{self, FileCtx};
use super::jobs::JobError;
use super::progress::PROGRESS_MIN_FILES;
use super::session::{Session, lock};
use super::settings::DEFAULT_DEBOUNCE;
use crate::config::CheckOn;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tower_lsp_server::ls_types::{Diagnostic, MessageType, Uri};

/// A check of one file retries this often when edits keep cancelling it.
const CHECK_ATTEMPTS: u64 = 40;

impl Session {
    fn debounce(&self) -> Duration {
        lock(&self.settings)
            .client
            .debounce
            .unwrap_or(DEFAULT_DEBOUNCE)
    }

    fn superseded(&self, generation: u64) -> bool {
        self.check_gen.load(Ordering::SeqCst) != generation || self.shutdown.load(Ordering::SeqCst)
    }

    /// Stops every running check (a check started later is not affected).
    pub(super) fn supersede_checks(&self) {
        self.check_gen.fetch_add(1, Ordering::SeqCst);
    }

    /// Check `first`, then every open document, then every other file of the workspace (salsa
    /// makes unchanged files nearly free), publishing as each file is done.
    pub(super) fn schedule_check(self: &Arc<Self>, first: Vec<PathBuf>) {
        let generation = self.check_gen.fetch_add(1, Ordering::SeqCst) + 1;
        let this = self.clone();
        tokio::spawn(async move { this.check(generation, first).await });
    }

    async fn check(self: Arc<Self>, generation: u64, first: Vec<PathBuf>) {
        // Diagnostics computed before the workspace is loaded would lack other files'
        // functions; wait for indexing (bounded, in case `initialized` never comes).
        let mut ready = self.indexed.subscribe();
        let _ = tokio::time::timeout(Duration::from_secs(30), ready.wait_for(|v| *v)).await;
        if self.superseded(generation) {
            return;
        }
        let mut order = first;
        let mut open: Vec<PathBuf> = self.world.docs.iter().map(|d| d.key().clone()).collect();
        open.sort();
        let mut rest: Vec<PathBuf> = self.world.files.iter().map(|f| f.key().clone()).collect();
        rest.sort();
        order.extend(open);
        order.extend(rest);
        let mut seen = std::collections::HashSet::new();
        order.retain(|p| seen.insert(p.clone()));
        let total = order.len();
        // After the first file, as many files at once as there are cores (each check is one
        // job on the pool).
        let parallel = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2);
        let mut running = tokio::task::JoinSet::new();
        let mut order = order.into_iter();
        // The first file starts before the progress report is created: that is a round trip
        // to the client (`window/workDoneProgress/create`), which the edited file's
        // diagnostics need not wait for.
        if let Some(path) = order.next() {
            let this = self.clone();
            running.spawn(async move {
                // One first-file check of a path at a time: a save often comes right after
                // an edit that already made the document equal to the file on disk (the
                // editor writes the file, then sends `didSave`), and both schedule a check
                // of the same text. The later one waits, then finds the results cached,
                // instead of competing with the earlier for the pool.
                let lock = this.first_checks.entry(path.clone()).or_default().clone();
                let _running = lock.lock().await;
                this.check_file(generation, &path, true).await
            });
        }
        let progress = if total > PROGRESS_MIN_FILES {
            self.begin_progress("reductio: checking", format!("0/{total} files"))
                .await
        } else {
            None
        };
        let mut last_pct = 0;
        let mut done = 0;
        // First the edited file alone, so that nothing competes with it (its probes spread
        // over the pool), then `parallel` files at a time.
        let mut limit = 1;
        loop {
            while running.len() >= limit {
                if running.join_next().await.is_none() {
                    break;
                }
                done += 1;
                if let Some(p) = &progress {
                    let pct = (done * 100 / total) as u32;
                    if pct > last_pct {
                        last_pct = pct;
                        p.report_with_message(format!("{done}/{total} files"), pct)
                            .await;
                    }
                }
            }
            limit = parallel;
            if self.superseded(generation) {
                break;
            }
            let Some(path) = order.next() else { break };
            let this = self.clone();
            running.spawn(async move { this.check_file(generation, &path, false).await });
        }
        while running.join_next().await.is_some() {}
        if let Some(p) = progress {
            p.finish_with_message(format!("{total} files checked"))
                .await;
        }
    }

    /// Checks one file and publishes its diagnostics. `first`: the first file of a check
    /// (the one just edited, saved or opened): its probes run on the whole pool, and when an
    /// earlier check of the open document left its results, the diagnostics of its edited
    /// functions are published first ([`analysis::edited_first`]), then the complete ones.
    ///
    /// Under `checkOn = "save"`, an open document edited since it was last opened, saved or
    /// equal to the disk is left alone ([`Session::publishable`]): the save checks it. Without
    /// this a check that reached the document after the user typed (the one after indexing,
    /// or after a file changed on disk) would publish diagnostics of an unsaved buffer.
    async fn check_file(&self, generation: u64, path: &Path, first: bool) {
        for attempt in 0..CHECK_ATTEMPTS {
            if attempt > 0 {
                if self.superseded(generation) {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(5 * attempt.min(20))).await;
            }
            let Some((snap, ctx)) = self.world.file_snapshot(path, self.enc(), self.roots()) else {
                return; // the file left the workspace
            };
            if ctx.version.is_some()
                && self.config().check_on == CheckOn::Save
                && ctx.version != self.publishable.get(path).map(|v| *v)
            {
                return;
            }
            let revision = snap.revision;
            let job_ctx = ctx.clone();
            let open = ctx.version.is_some();
            let prev = if first && open {
                self.checked.get(path).map(|c| c.clone())
            } else {
                None
            };
            let (early_tx, mut early_rx) = tokio::sync::oneshot::channel();
            let started = std::time::Instant::now();
            let job = self.run(snap, move |db| {
                if first {
                    if let Some(diags) = prev.and_then(|p| analysis::edited_first(db, &job_ctx, &p))
                    {
                        let _ = early_tx.send(diags);
                    }
                    analysis::warm_file_probes(db, job_ctx.file);
                }
                let diags = analysis::file_diagnostics(db, &job_ctx);
                let checked = open.then(|| Arc::new(analysis::checked(db, &job_ctx)));
                (diags, analysis::build_warnings(db, &job_ctx), checked)
            });
            tokio::pin!(job);
            let mut early_pending = true;
            let result = loop {
                // `biased`: the edited functions' diagnostics, when the job sent them, are
                // published before the complete ones, even when both are ready.
                tokio::select! {
                    biased;
                    early = &mut early_rx, if early_pending => {
                        early_pending = false;
                        if let Ok(diags) = early {
                            tracing::debug!(
                                "edited functions of {} (revision {revision}) in {:?}: {} leaks",
                                path.display(),
                                started.elapsed(),
                                diags.len()
                            );
                            self.publish(&ctx, diags, revision).await;
                        }
                    }
                    r = &mut job => break r,
                }
            };
            match result {
                Ok((diags, warnings, checked)) => {
                    self.warn_build(warnings).await;
                    tracing::debug!(
                        "checked {} (revision {revision}) in {:?}: {} leaks",
                        path.display(),
                        started.elapsed(),
                        diags.len()
                    );
                    if let Some(c) = checked {
                        self.checked.insert(path.to_path_buf(), c);
                    }
                    if self.publish(&ctx, diags, revision).await {
                        return;
                    }
                }
                Err(JobError::Cancelled) => {}
                Err(JobError::Failed(msg)) => {
                    self.log(
                        MessageType::ERROR,
                        format!("checking {} failed: {msg}", path.display()),
                    )
                    .await;
                    return;
                }
            }
        }
    }

    /// The build model's problems, each text once per session: the ones that change what the
    /// whole project's analysis sees as a `window/showMessage` warning, the rest logged.
    async fn warn_build(&self, warnings: Vec<(bool, String)>) {
        for (shown, text) in warnings {
            if !self.build_warned.insert(text.clone()) {
                continue;
            }
            if shown {
                self.client
                    .show_message(MessageType::WARNING, text.clone())
                    .await;
            }
            self.log(MessageType::WARNING, text).await;
        }
    }

    /// Publishes unless the snapshot is no longer the latest revision (then the caller
    /// retries on the new one). Returns whether the result was current.
    async fn publish(&self, ctx: &FileCtx, diags: Vec<Diagnostic>, revision: u64) -> bool {
        let mut published = self.published.lock().await;
        if self.world.revision() != revision {
            return false;
        }
        let diags = if self.excluded(&ctx.path) {
            vec![]
        } else {
            diags
        };
        let entry = (ctx.version, diags);
        match published.get(&ctx.uri) {
            Some(prev) if *prev == entry => return true,
            None if entry.1.is_empty() && ctx.version.is_none() => return true,
            _ => {}
        }
        published.insert(ctx.uri.clone(), entry.clone());
        self.client
            .publish_diagnostics(ctx.uri.clone(), entry.1, entry.0)
            .await;
        true
    }

    pub(super) async fn clear_diagnostics(&self, uri: &Uri) {
        let mut published = self.published.lock().await;
        if published.remove(uri).is_some() {
            self.client
                .publish_diagnostics(uri.clone(), vec![], None)
                .await;
        }
    }

    /// Counts an edit of `path`. The future is `true` once the debounce delay has passed with
    /// no later edit of `path`.
    fn debounced(self: &Arc<Self>, path: &Path) -> impl Future<Output = bool> + Send + 'static {
        let n = {
            let mut e = self.edits.entry(path.to_path_buf()).or_insert(0);
            *e += 1;
            *e
        };
        let delay = self.debounce();
        let this = self.clone();
        let path = path.to_path_buf();
        async move {
            tokio::time::sleep(delay).await;
            this.edits.get(&path).map(|e| *e).unwrap_or(0) == n
        }
    }

    /// `checkOn = "save"`: after the debounce, the edited document's probes run in the
    /// background and nothing is published, so that the save finds them done and its check
    /// only places and publishes the results. A later edit cancels the run (the database
    /// write cancels every query of older snapshots) and starts its own after the debounce;
    /// a save during the run shares its queries.
    pub(super) fn warm_on_change(self: &Arc<Self>, path: PathBuf) {
        let quiet = self.debounced(&path);
        let this = self.clone();
        tokio::spawn(async move {
            // Before indexing ends the workspace's other functions are not there yet: the
            // results would not be the save's.
            if !quiet.await || !*this.indexed.borrow() || this.shutdown.load(Ordering::SeqCst) {
                return;
            }
            let Some((snap, ctx)) = this.world.file_snapshot(&path, this.enc(), this.roots())
            else {
                return;
            };
            let file = ctx.file;
            let _ = this
                .run(snap, move |db| {
                    analysis::warm_file_probes(db, file);
                    let _ = analysis::file_diagnostics(db, &ctx);
                })
                .await;
        });
    }

    /// `checkOn = "change"`: check `path` once no edit has come for the debounce delay.
    pub(super) fn check_on_change(self: &Arc<Self>, path: PathBuf) {
        let quiet = self.debounced(&path);
        let this = self.clone();
        tokio::spawn(async move {
            if quiet.await {
                this.schedule_check(vec![path]);
            }
        });
    }
}
