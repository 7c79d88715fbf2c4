//! Graceful shutdown: the signals that start it, the readiness it withdraws, and the drain.
//!
//! On SIGTERM (or ctrl-c) the server reports not ready, keeps serving for the configured delay
//! (kube-apiserver keeps using a pod's endpoint until the endpoint update reaches it), then
//! stops accepting connections and lets in-flight requests finish, up to a deadline chosen
//! below the pod's termination grace period. A second signal stops at once.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum_server::Handle;

/// Which signal asked the server to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGTERM (the kubelet, `kill`).
    Terminate,
    /// SIGINT (ctrl-c).
    Interrupt,
}

impl Signal {
    /// `SIGTERM` or `SIGINT`.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Terminate => "SIGTERM",
            Signal::Interrupt => "SIGINT",
        }
    }
}

/// SIGTERM and SIGINT, listened for from the moment this is made.
struct Signals {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
}

impl Signals {
    /// Installs the handlers: from here on SIGTERM and SIGINT are this program's to handle (not
    /// the default action, which kills it with status 143 or 130).
    fn listen() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Signals { term: signal(SignalKind::terminate())?, int: signal(SignalKind::interrupt())? })
    }

    /// Waits for the next of them.
    async fn next(&mut self) -> Signal {
        tokio::select! {
            _ = self.term.recv() => Signal::Terminate,
            _ = self.int.recv() => Signal::Interrupt,
        }
    }
}

/// Two futures: the first stop signal, and a second one (which ends the drain at once). Call it
/// inside the runtime, first thing: the handlers are installed before it returns (a signal that
/// comes while the server is still starting is not lost), and a task waits for both.
pub fn stop_signals() -> (impl Future<Output = ()> + Send, impl Future<Output = ()> + Send) {
    let (first_tx, first_rx) = tokio::sync::oneshot::channel::<()>();
    let (second_tx, second_rx) = tokio::sync::oneshot::channel::<()>();
    let signals = Signals::listen();
    tokio::spawn(async move {
        match signals {
            Ok(mut signals) => {
                for tx in [first_tx, second_tx] {
                    let signal = signals.next().await;
                    tracing::info!(signal = signal.name(), "stop requested");
                    let _ = tx.send(());
                }
            }
            Err(error) => {
                tracing::error!(%error, "cannot listen for signals; stopping");
                let _ = first_tx.send(());
                let _ = second_tx.send(());
            }
        }
    });
    (
        async move {
            let _ = first_rx.await;
        },
        async move {
            let _ = second_rx.await;
        },
    )
}

/// Whether the server is draining (and so not ready).
#[derive(Debug, Default)]
pub struct Lifecycle {
    draining: AtomicBool,
}

impl Lifecycle {
    /// Marks the server as draining: `/readyz` fails from now on.
    pub fn start_draining(&self) {
        self.draining.store(true, Ordering::Release);
    }

    /// Whether [`Lifecycle::start_draining`] was called.
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Acquire)
    }
}

/// How the drain proceeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Drain {
    /// Serving on, not ready, before the listener closes.
    pub delay: Duration,
    /// Longest wait for in-flight requests after the listener closed.
    pub timeout: Duration,
}

/// Runs the drain once `stop` resolves: not ready, wait `delay`, close the listener and let
/// connections finish within `timeout`. A second `stop` signal stops at once.
pub async fn drain<F, G>(stop: F, second: G, lifecycle: &Lifecycle, handle: Handle<SocketAddr>, drain: Drain)
where
    F: Future<Output = ()>,
    G: Future<Output = ()>,
{
    stop.await;
    lifecycle.start_draining();
    tracing::info!(delay = ?drain.delay, timeout = ?drain.timeout, "draining: not ready, closing the listener after the delay");
    let graceful = async {
        tokio::time::sleep(drain.delay).await;
        tracing::info!(connections = handle.connection_count(), "closing the listener; finishing in-flight requests");
        handle.graceful_shutdown(Some(drain.timeout));
        std::future::pending::<()>().await;
    };
    tokio::select! {
        () = graceful => {}
        () = second => {
            tracing::warn!("second signal: stopping now");
            handle.shutdown();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifecycle() {
        let l = Lifecycle::default();
        assert!(!l.is_draining());
        l.start_draining();
        assert!(l.is_draining());
    }
}
