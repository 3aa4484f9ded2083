//! Logging: the server's own log on stderr (stdout carries the protocol), and messages to the
//! client (`window/logMessage`, `window/showMessage`) mirrored there.

use super::session::Session;
use tower_lsp_server::ls_types::MessageType;

/// Logs go to stderr: stdout carries the protocol. `REDUCTIO_LOG` sets the
/// level of reductio's own events; other crates (salsa logs every query it
/// executes at `info`) stay at `warn` unless `debug` or `trace` is asked for.
pub(super) fn init_logging() {
    use tracing_subscriber::filter::Targets;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let level = match std::env::var("REDUCTIO_LOG").as_deref() {
        Ok("trace") => tracing::Level::TRACE,
        Ok("debug") => tracing::Level::DEBUG,
        Ok("warn") => tracing::Level::WARN,
        Ok("error") => tracing::Level::ERROR,
        _ => tracing::Level::INFO,
    };
    let others = if level >= tracing::Level::DEBUG {
        level
    } else {
        level.min(tracing::Level::WARN)
    };
    let filter = Targets::new()
        .with_default(others)
        .with_target("reductio", level);
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_thread_names(true)
        .finish()
        .with(filter)
        .try_init();
}

impl Session {
    /// `window/logMessage`, and the same line in the server's own log.
    pub(super) async fn log(&self, typ: MessageType, msg: impl Into<String>) {
        let msg = msg.into();
        match typ {
            MessageType::ERROR => tracing::error!("{msg}"),
            MessageType::WARNING => tracing::warn!("{msg}"),
            _ => tracing::info!("{msg}"),
        }
        self.client.log_message(typ, msg).await;
    }

    /// A settings or configuration error: shown to the user (`window/showMessage`) and logged.
    pub(super) async fn show_error(&self, msg: String) {
        self.client.show_message(MessageType::ERROR, &msg).await;
        self.log(MessageType::ERROR, msg).await;
    }
}
