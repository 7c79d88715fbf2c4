//! How the cache hears from its watches: a tower layer on the cache's own client that notes,
//! per watched kind, each watch the API server answers (`200`) and each piece of its stream
//! (an event, a bookmark, an error event).
//!
//! kube-runtime's watcher cannot tell this: it swallows bookmarks and restarts a watch that
//! ends (`timeoutSeconds`) without a word, and notices a watch that has gone silent only after
//! `timeoutSeconds` + 5 s (290 s without a timeout). An API server that hangs with its sockets
//! open (stopped, overloaded, a half-open connection) then looks exactly like a quiet cluster.
//! With what this layer notes, a watch that has delivered nothing (no event, no bookmark, no
//! new watch) for longer than the bound makes the view stale ([`super::ContextCache::freshness`]).

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::future::BoxFuture;
use http::{Request, Response};
use http_body::{Body, Frame, SizeHint};
use tower::{Layer, Service};

use super::{CacheShared, WATCHED};
use crate::kinds::ResourceKind;

/// Wraps the cache's client so that its watches are heard ([`CacheShared::heard`]).
#[derive(Clone)]
pub(super) struct HeartbeatLayer {
    shared: Arc<CacheShared>,
    /// The collection path of each watched kind (`/apis/apps/v1/deployments`): a watch of all
    /// namespaces, as the cache's watchers ask for.
    paths: Arc<[(String, ResourceKind)]>,
}

impl HeartbeatLayer {
    pub(super) fn new(shared: Arc<CacheShared>) -> HeartbeatLayer {
        let paths = WATCHED.iter().map(|k| (k.collection_path(None), *k)).collect();
        HeartbeatLayer { shared, paths }
    }
}

impl<S> Layer<S> for HeartbeatLayer {
    type Service = Heartbeat<S>;

    fn layer(&self, inner: S) -> Heartbeat<S> {
        Heartbeat { inner, layer: self.clone() }
    }
}

/// The service [`HeartbeatLayer`] makes.
#[derive(Clone)]
pub(super) struct Heartbeat<S> {
    inner: S,
    layer: HeartbeatLayer,
}

impl<S> Heartbeat<S> {
    /// The kind a request watches (`watch=true` on a watched collection), if it is a watch.
    fn watched<B>(&self, request: &Request<B>) -> Option<ResourceKind> {
        let uri = request.uri();
        let watch = uri.query().is_some_and(|q| q.split('&').any(|p| p == "watch=true" || p == "watch=1"));
        if !watch {
            return None;
        }
        self.layer.paths.iter().find(|(path, _)| path == uri.path()).map(|(_, kind)| *kind)
    }
}

impl<S, ReqBody, B> Service<Request<ReqBody>> for Heartbeat<S>
where
    S: Service<Request<ReqBody>, Response = Response<B>>,
    S::Future: Send + 'static,
    B: Body + Unpin,
{
    type Response = Response<Heard<B>>;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Self::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<ReqBody>) -> Self::Future {
        let kind = self.watched(&request);
        let shared = self.layer.shared.clone();
        let answer = self.inner.call(request);
        Box::pin(async move {
            let response = answer.await?;
            // A watch the server answered: it was reached and serves this kind now. An error
            // status is not heard: kube-runtime reports it, and the watch counts as broken.
            let watch = kind.filter(|_| response.status().is_success()).map(|kind| {
                shared.watch_answered(kind);
                (kind, shared)
            });
            Ok(response.map(|body| Heard { body, watch }))
        })
    }
}

/// A response body that notes each data frame of a watch's stream.
pub(super) struct Heard<B> {
    body: B,
    watch: Option<(ResourceKind, Arc<CacheShared>)>,
}

impl<B: Body + Unpin> Body for Heard<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.body).poll_frame(cx);
        if let (Poll::Ready(Some(Ok(frame))), Some((kind, shared))) = (&polled, &this.watch)
            && frame.is_data()
        {
            shared.heard(*kind);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
