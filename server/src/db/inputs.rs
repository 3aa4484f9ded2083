//! The salsa inputs (source files, the workspace's file set, the configuration) and the only
//! API that changes them: [`Database::add_file`], [`Database::remove_file`],
//! [`Database::set_file_text`], [`Database::set_file_tree`], [`Database::set_config`]. Callers
//! (the language server's `World`, the CLI's `batch`) never call salsa setters themselves.

use super::database::{Database, Db};
use crate::config::Config;
use crate::syntax::SyntaxTree;
use salsa::Setter;
use std::path::{Path, PathBuf};

/// One C source or header file.
#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub path: PathBuf,
    #[returns(ref)]
    pub text: String,
    /// A tree kept up to date incrementally by the editor layer, if any. When absent the file
    /// is parsed from scratch.
    #[returns(clone)]
    pub tree: Option<SyntaxTree>,
}

/// The set of files analysed together: functions are resolved by name across them.
#[salsa::input(debug)]
pub struct Workspace {
    #[returns(ref)]
    pub files: Vec<SourceFile>,
}

#[salsa::input(debug)]
pub struct Settings {
    #[returns(ref)]
    pub config: Config,
}

impl Database {
    /// Add a file to the workspace (or replace the text of a file with the same path).
    pub fn add_file(&mut self, path: PathBuf, text: String) -> SourceFile {
        let ws = self.workspace();
        let files = ws.files(self).clone();
        if let Some(&f) = files.iter().find(|f| *f.path(self) == path) {
            f.set_text(self).to(text);
            f.set_tree(self).to(None);
            return f;
        }
        let key = super::build::absolute(&path);
        // A header the build model already read becomes a workspace file: same input, so
        // what read it stays valid.
        let known = self
            .files
            .lock()
            .ok()
            .and_then(|m| m.get(&key).cloned())
            .and_then(Result::ok);
        let f = match known {
            Some(f) => {
                if *f.text(self) != text {
                    f.set_text(self).to(text);
                }
                if f.tree(self).is_some() {
                    f.set_tree(self).to(None);
                }
                if *f.path(self) != path {
                    f.set_path(self).to(path);
                }
                f
            }
            None => {
                let f = SourceFile::new(self, path, text, None);
                if let Ok(mut m) = self.files.lock() {
                    m.insert(key, Ok(f));
                }
                f
            }
        };
        let mut files = files;
        files.push(f);
        ws.set_files(self).to(files);
        f
    }

    /// Replace the configuration; an equal one changes nothing (no new revision).
    pub fn set_config(&mut self, config: Config) {
        let settings = self.settings();
        if *settings.config(self) != config {
            settings.set_config(self).to(config);
        }
    }

    /// Take a file out of the workspace (deleted on disk, or closed in the editor and not part
    /// of any workspace folder). Returns whether it was there.
    pub fn remove_file(&mut self, path: &Path) -> bool {
        let ws = self.workspace();
        let files = ws.files(self).clone();
        let kept: Vec<SourceFile> = files
            .iter()
            .copied()
            .filter(|f| f.path(self).as_path() != path)
            .collect();
        if kept.len() == files.len() {
            return false;
        }
        ws.set_files(self).to(kept);
        true
    }

    /// Replace the text of a file (its syntax tree, if any, is kept until
    /// [`Database::set_file_tree`] replaces it).
    pub fn set_file_text(&mut self, file: SourceFile, text: String) {
        file.set_text(self).to(text);
    }

    /// Give a file the tree the editor keeps up to date incrementally for its current text
    /// (`None`: parse the text from scratch).
    pub fn set_file_tree(&mut self, file: SourceFile, tree: Option<SyntaxTree>) {
        file.set_tree(self).to(tree);
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        self.settings().config(self)
    }
}
