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

/// Waits for SIGTERM or SIGINT.
async fn signal() -> std::io::Result<Signal> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    tokio::select! {
        _ = term.recv() => Ok(Signal::Terminate),
        _ = int.recv() => Ok(Signal::Interrupt),
    }
}

/// Two futures: the first stop signal, and a second one (which ends the drain at once). Call it
/// inside the runtime: a task listens for both.
pub fn stop_signals() -> (impl Future<Output = ()> + Send, impl Future<Output = ()> + Send) {
    let (first_tx, first_rx) = tokio::sync::oneshot::channel::<()>();
    let (second_tx, second_rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        for tx in [first_tx, second_tx] {
            match signal().await {
                Ok(signal) => tracing::info!(signal = signal.name(), "stop requested"),
                Err(error) => tracing::error!(%error, "cannot listen for signals; stopping"),
            }
            let _ = tx.send(());
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
