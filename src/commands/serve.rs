//! `rafle serve`: the tables over HTTP, a JSON API and the explorer page (crate
//! `rafle-server`).

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use rafle_generator::parse_memory;
use rafle_probe::{draughts::Variant, DEFAULT_CACHE_BYTES};
use rafle_server::{AppState, Bounds};

use crate::output::{other, stderr_line, Failure};

/// The long help of `rafle serve`.
pub const LONG_ABOUT: &str = "\
Serve the tables over HTTP: a JSON API, the explorer page, and lidraughts' tablebase routes.

  GET  /api/v1/{variant}?fen=FEN[&counters=K,C]       a position and its moves, best first
  GET  /api/v1/{variant}/line?fen=FEN[&counters=K,C]  the same, with the game to its end
  POST /api/v1/{variant}/batch  {\"fens\":[...], \"counters\":\"K,C\"}   up to 1000 positions
  GET  /api/v1/tables                                 what the directory holds
  GET  /                                              the explorer page
  GET  /standard?fen=FEN                              lidraughts' tablebase route, international
  GET  /fromPosition?fen=FEN                          the same (lidraughts' from-position games)
  GET  /brazilian?fen=FEN                             lidraughts' tablebase route, Brazilian

The lidraughts routes answer as lidraughts' tablebase client expects (its FEN, uci and san of
the moves, best first); point lidraughts' explorer.tablebase.endpoint at this server
(docs/api.md, lidraughts).

{variant} is international or brazilian. Errors are {\"error\":\"...\"} with status 400 (a
malformed FEN, counters, query or body), 404 (no such variant or path), 413 (a body over 1
MiB or a batch over 1000 positions), 414 (a query over 2048 bytes), 422 (a line of a position
with more pieces than the tables cover), 500 (a damaged table, named) or 503 (a missing table,
named; or no probe could start within 10 s). docs/api.md has the JSON.

Connections: a client has 10 s to send a request's head (on a new connection, and between
requests of a kept-alive one) and 10 s to send a body (408 past it). At most 1024
connections are open, fewer under a low descriptor limit ('ulimit -n' less 64): one more
closes the connection idle the longest, or is closed itself when every one is answering.

One line per request on stderr: method, path, status, time to the response in ms. Ctrl-C or
SIGTERM stops the server once the requests under way are answered (at most 10 s).";

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Table directory, holding DIR/<variant>/<material>.wdl.
    #[arg(long, value_name = "DIR", env = super::DATA_ENV, hide_env_values = true, default_value = "data")]
    data: PathBuf,
    /// Address and port to listen on (port 0: any free port, printed at start).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    bind: SocketAddr,
    /// Budget of the cache of decompressed blocks, like 256M or 1G [default: 256M].
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    cache: Option<u64>,
}

pub fn run(args: &ServeArgs) -> Result<(), Failure> {
    let cache = args.cache.map_or(DEFAULT_CACHE_BYTES, |bytes| {
        usize::try_from(bytes).unwrap_or(usize::MAX)
    });
    let tables = super::open_table_dir(&args.data, cache)?;
    let mut any = false;
    for variant in Variant::ALL {
        let materials = tables.materials(variant);
        if materials.is_empty() {
            continue;
        }
        any = true;
        let rules = match tables.limits(variant) {
            Ok(Some(limits)) => format!("rules {limits}"),
            Ok(None) => "no rule tables".to_string(),
            // Served all the same: the probes that need them answer 500 naming the files.
            Err(e) => format!("rule tables unusable: {e}"),
        };
        stderr_line!(
            "rafle serve: {variant}: {} materials up to {} pieces, {rules}",
            materials.len(),
            tables.max_pieces(variant)
        );
    }
    if !any {
        return Err(super::no_tables(&args.data, None));
    }
    let bounds = Bounds::default();
    stderr_line!(
        "rafle serve: cache {} MiB; at most {} bytes a query, {} KiB a body, {} positions a \
         batch, {} probes at once, {} connections, {} s to send a request's head",
        cache >> 20,
        bounds.max_query_bytes,
        bounds.max_body_bytes >> 10,
        bounds.max_batch,
        bounds.max_probes,
        rafle_server::serve::connection_limit(&bounds),
        bounds.header_timeout.as_secs()
    );
    rafle_server::run(args.bind, AppState::new(tables, bounds)).map_err(other)
}
