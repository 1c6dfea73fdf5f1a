//! `retrograde serve FILE.rtb...`: explore solved maps in a browser.
//!
//! An HTTP server (axum on tokio) that serves one embedded page and a
//! read-only JSON API over the tables named on the command line. Requests
//! never name files: a table is picked by its name (the file stem), and the
//! only tables are the ones opened at start-up. The library never sees HTTP;
//! this module turns requests into `Tablebase` calls
//! (`serve/api/`) and bounds everything a client controls: the request
//! size, the number of connections and requests in flight, and each
//! request's time.
//!
//! Files: `serve/api/` the JSON API (`mod.rs` requests and endpoints,
//! `params.rs` query strings, `table.rs` a served table's answers),
//! `serve/conn.rs` the connections and their limits, `serve/cache.rs` the
//! bounded answer cache.

mod api;
mod cache;
mod conn;

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use axum::body::{Body, Bytes};
use axum::extract::{RawQuery, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use clap::Args as ClapArgs;
use tokio::net::TcpListener;
use tower::limit::GlobalConcurrencyLimitLayer;
use tower::ServiceBuilder;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;

use self::api::{ApiError, Endpoint, Served};
use self::conn::Limited;
use super::common::UsageError;
use crate::cli::failure::Failure;

/// Flags of `serve`.
#[derive(ClapArgs, Debug)]
pub(crate) struct ServeArgs {
    /// Tablebase files to serve (from `solve --save`); each is served under
    /// its file name without the extension.
    #[arg(required = true, value_name = "FILE.rtb")]
    tables: Vec<PathBuf>,
    /// Address and port to listen on (port 0 picks a free one).
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR:PORT")]
    bind: SocketAddr,
    /// Allow a --bind address other than loopback: the server is then
    /// reachable from other machines (read-only, but unauthenticated).
    #[arg(long)]
    public: bool,
    /// Open the page in the default browser once the server listens.
    #[arg(long)]
    open: bool,
}

/// Requests handled at once (the rest wait for a slot).
const MAX_IN_FLIGHT: usize = 256;
/// Open connections at once: a new connection past this sheds the one
/// that has waited longest for a request's headers (see `conn`); when
/// every connection is busy answering, it waits in the backlog.
const MAX_CONNECTIONS: usize = 512;
/// Longest request URI, in bytes; the API needs well under 200.
const MAX_URI: usize = 2048;
/// Largest request body: the API takes none.
const MAX_BODY: usize = 1024;
/// Time limit of one request.
const REQUEST_TIME: Duration = Duration::from_secs(10);
/// A connection with no bytes read or written for this long is closed,
/// freeing its slot: otherwise [`MAX_CONNECTIONS`] idle connections would
/// make every new client wait as long as they are held. Longer than
/// [`REQUEST_TIME`], so a request being answered is ended by its own
/// timeout first.
const IDLE_TIME: Duration = Duration::from_secs(15);
/// A request's headers must be complete this long after the connection
/// opened or answered its last request: a client trickling a byte every
/// few seconds (slowloris) never looks idle, but is closed here.
const HEADER_TIME: Duration = Duration::from_secs(10);
/// Bytes of answers kept by the response cache.
const CACHE_BYTES: usize = 64 << 20;

/// The page and its assets, embedded in the binary.
const INDEX_HTML: &str = include_str!("../../web/index.html");
const APP_JS: &str = include_str!("../../web/app.js");
const DRAW_JS: &str = include_str!("../../web/draw.js");
const STYLE_CSS: &str = include_str!("../../web/style.css");

/// Opens the tables, binds, prints the address and serves until Ctrl-C.
pub(crate) fn run(args: ServeArgs) -> Result<i32, Failure> {
    if !args.bind.ip().is_loopback() && !args.public {
        return Err(UsageError(format!(
            "--bind {} is not a loopback address: add --public to serve other machines",
            args.bind
        ))
        .into());
    }
    let served = Arc::new(Served::open(&args.tables, CACHE_BYTES)?);
    one_malloc_arena();
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .max_blocking_threads(4 * threads)
        .enable_all()
        .build()
        .context("cannot start the server's runtime")?;
    runtime.block_on(serve(args, served))?;
    Ok(0)
}

/// Keeps the server's resident memory within its caches (the answers'
/// 64 MiB and 256 MiB of blocks per table) plus its working set: glibc
/// gives each thread that allocates while another holds the lock an arena
/// of its own, and the freed buffers of large answers (a row of a 194 x 194
/// map is about 100 KB of JSON) stay in those arenas. Under 8 clients each
/// asking distinct rows that grew to 1.4 GB (issue 23, point 8); with one
/// arena the server stays at the caches plus about 50 MiB (measured in
/// docs/measurements.md, "serve: resident memory"). Must run before the
/// runtime starts its threads.
fn one_malloc_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; no other thread of
    // this process allocates yet (the runtime is built after this call).
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

async fn serve(args: ServeArgs, served: Arc<Served>) -> Result<()> {
    // An address that cannot be bound (taken, or not this machine's) is
    // refused before serving: exit status 2, the cause kept.
    let listener = TcpListener::bind(args.bind).await.map_err(|e| {
        anyhow::Error::new(e).context(UsageError(format!("cannot listen on {}", args.bind)))
    })?;
    let addr = listener.local_addr().context("bound address")?;
    let url = format!("http://{addr}/");
    if !addr.ip().is_loopback() {
        say!(
            "warning: listening on {addr}, reachable from other machines; \
             anyone who can reach it can read the tables"
        );
    }
    // The first line is the contract with scripts and tests: they read the
    // URL from it (useful with port 0).
    // A closed stdout (`| head -1`) must not stop the server: write errors
    // are ignored.
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "serving at {url}");
        for table in served.tables() {
            let _ = writeln!(
                out,
                "  {}: {} ({})",
                table.name,
                table.path.display(),
                table.shape()
            );
        }
        let _ = out.flush();
    }
    if args.open {
        open_browser(&url);
    }
    let app = router(served);
    let limited = Limited::new(listener, MAX_CONNECTIONS);
    axum::serve(limited, app)
        .with_graceful_shutdown(async {
            // Without a signal handler the server runs until killed.
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        })
        .await
        .context("server failed")
}

/// The routes with their limits.
fn router(served: Arc<Served>) -> Router {
    let api = |endpoint: Endpoint| {
        get(
            move |State(served): State<Arc<Served>>, RawQuery(query): RawQuery| async move {
                answer(served, endpoint, query.unwrap_or_default()).await
            },
        )
    };
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/draw.js",
            get(|| async { asset("text/javascript; charset=utf-8", DRAW_JS) }),
        )
        .route(
            "/style.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE_CSS) }),
        )
        .route("/api/tables", api(Endpoint::Tables))
        .route("/api/map", api(Endpoint::Map))
        .route("/api/query", api(Endpoint::Query))
        .route("/api/row", api(Endpoint::Row))
        .route("/api/play", api(Endpoint::Play))
        .fallback(|| async { ApiError::NotFound("no such page".into()).into_response() })
        .with_state(served)
        .layer(
            ServiceBuilder::new()
                .layer(CatchPanicLayer::custom(|_| {
                    ApiError::Internal("the server failed on this request".into()).into_response()
                }))
                .layer(middleware::from_fn(guard))
                .layer(TimeoutLayer::with_status_code(
                    StatusCode::SERVICE_UNAVAILABLE,
                    REQUEST_TIME,
                ))
                .layer(GlobalConcurrencyLimitLayer::new(MAX_IN_FLIGHT))
                .layer(RequestBodyLimitLayer::new(MAX_BODY)),
        )
}

/// Rejects what no endpoint takes before any work: long URIs, bodies,
/// methods other than GET and HEAD.
async fn guard(request: Request, next: Next) -> Response {
    if request.uri().to_string().len() > MAX_URI {
        return ApiError::Status(
            StatusCode::URI_TOO_LONG,
            format!("URI longer than {MAX_URI} bytes"),
        )
        .into_response();
    }
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return ApiError::Status(
            StatusCode::METHOD_NOT_ALLOWED,
            "read-only server: only GET".into(),
        )
        .into_response();
    }
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > 0) || request.headers().contains_key(header::TRANSFER_ENCODING)
    {
        return ApiError::Status(
            StatusCode::PAYLOAD_TOO_LARGE,
            "requests take no body".into(),
        )
        .into_response();
    }
    next.run(request).await
}

/// One API answer: from the cache, else computed on a blocking thread (a
/// probe may decode a block or fault pages in from disk).
async fn answer(served: Arc<Served>, endpoint: Endpoint, query: String) -> Response {
    let request = match served.parse(endpoint, &query) {
        Ok(request) => request,
        Err(error) => return error.into_response(),
    };
    if let Some(body) = served.cached(&request) {
        return json(body);
    }
    let worker = Arc::clone(&served);
    match tokio::task::spawn_blocking(move || worker.compute(&request)).await {
        Ok(Ok(body)) => json(body),
        Ok(Err(error)) => error.into_response(),
        Err(_) => ApiError::Internal("the server failed on this request".into()).into_response(),
    }
}

fn json(body: Bytes) -> Response {
    let mut response = Response::new(Body::from(body));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn asset(content_type: &'static str, text: &'static str) -> Response {
    let mut response = Response::new(Body::from(text));
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Only our own page, script and style: nothing from elsewhere runs.
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'",
        ),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// Starts the system's browser on `url`, where there is one.
fn open_browser(url: &str) {
    let candidates: &[&str] = if cfg!(target_os = "macos") {
        &["open"]
    } else {
        &["xdg-open", "sensible-browser", "x-www-browser"]
    };
    for program in candidates {
        let started = std::process::Command::new(program)
            .arg(url)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if started.is_ok() {
            return;
        }
    }
    say!(
        "note: no browser found ({}); open {url} yourself",
        candidates.join(", ")
    );
}
