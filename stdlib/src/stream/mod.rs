//! Streaming: stream tables that can be subscribed to, and the streaming engines
//! (reactive state, time series) that subscriptions feed.
//!
//! Why here and how: DolphinDB scripts publish ticks to a shared stream table, subscribe
//! handlers (functions, engines, tables) to it, and compute indicators in engines whose
//! results land in output tables. Beluga's tables are values, so the objects that need
//! identity (a stream table written by one name and read by another, an engine) are
//! handles (`Value::Handle`) with interior state; they implement `TableSource` so
//! `select`, `t.col` and `t[...]` read them, and `Handle::session_append` so `append!`,
//! `tableInsert` and `insert into` reach them with the interpreter in hand.
//!
//! Delivery is synchronous: an append to a stream table runs every subscriber's handler
//! in the appending session before the append returns (deterministic for scripts and
//! tests; see docs/architecture.md). Engines compute when rows are appended to them and
//! write their output at once.
//!
//! * `table`: `streamTable`, `haStreamTable`, `subscribeTable`, `unsubscribeTable`, `getStreamingStat`.
//! * `engine`: the engine handle, the registry of engines by name, output targets,
//!   `getStreamEngine`, `dropStreamEngine`, `getStreamEngineStat`.
//! * `reactive`: `createReactiveStateEngine`.
//! * `timeseries`: `createTimeSeriesEngine`.
//! * `daily`: `createDailyTimeSeriesEngine`.
//! * `session`: `createSessionWindowEngine`.
//! * `cross`: `createCrossSectionalEngine`.
//! * `join`: the asof, equi, lookup and left semi join engines, `appendForJoin`.
//! * `incr`: the incremental form of reactive-state metrics.
//! * `replay`: `replay` (tables into stream tables and engines, in time order).
//! * `filter`: heterogeneous replay rows (BLOB) and `streamFilter`.
//! * `anomaly`: `createAnomalyDetectionEngine`.
//! * `cached`: `cachedTable` (a table refreshed by a function when read).

pub mod anomaly;
pub mod cached;
pub mod cross;
pub mod daily;
pub mod engine;
pub mod filter;
pub mod incr;
pub mod join;
pub mod reactive;
pub mod replay;
pub mod session;
pub mod table;
pub mod timeseries;

use beluga_runtime::CallCtx;
use beluga_runtime::registry::{f, fp, BuiltinFn};
use beluga_runtime::{Builtin, Error, Kind, Registry, Result, Value};

/// The layer streaming's wrappers are kept under (`Registry::wrap`).
const LAYER: &str = "stream";

/// The row this layer's wrapper of `name` replaced (kept by the session's registry).
fn prev(i: &mut CallCtx, name: &'static str, args: Vec<Value>) -> Result<Value> {
    i.call_wrapped(LAYER, name, args)
        .unwrap_or_else(|| Err(Error::runtime(format!("internal: {name} has no wrapped builtin"))))
}

/// Builtins that read a table: given a stream table or an engine, they read its rows at
/// that moment (an engine's: what `select * from engine` gives).
macro_rules! reads_table {
    ($($f:ident = $name:literal),* $(,)?) => {
        $(fn $f(i: &mut CallCtx, mut a: Vec<Value>) -> Result<Value> {
            if let Some(s) = a.first().and_then(table::as_stream) {
                a[0] = Value::table(s.snapshot()?);
            } else if let Some(e) = a.first().and_then(engine::as_engine) {
                a[0] = Value::table(e.current());
            }
            prev(i, $name, a)
        })*
        const READS_TABLE: &[(&str, BuiltinFn)] = &[$(($name, $f)),*];
    };
}

reads_table!(
    w_size = "size",
    w_rows = "rows",
    w_count = "count",
    w_column_names = "columnNames",
    w_col_names = "colNames",
    w_schema = "schema",
    w_head = "head",
    w_tail = "tail",
    w_values = "values",
    w_cols = "cols",
    w_is_empty = "isEmpty",
    w_eq_obj = "eqObj",
    w_first = "first",
    w_last = "last",
    w_string = "string",
);

/// Make the table-reading builtins read stream tables (called by `register` after every
/// family's rows are in, before storage wraps some of the same names).
/// Rows of `t` per key combination of the columns `keys`, keys in order of first
/// appearance: the grouping kernel numbers the groups, and each group's key is read at its
/// first row (engines keep per-key state under that key).
pub(crate) fn rows_by_key(t: &beluga_runtime::Table, keys: &[usize]) -> Vec<(Vec<beluga_runtime::Key>, Vec<usize>)> {
    let cols: Vec<&beluga_runtime::Column> = keys.iter().map(|&c| &t.cols[c]).collect();
    let g = beluga_runtime::kernels::group::group_ids(&cols);
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); g.n];
    for (r, &id) in g.gid.iter().enumerate() {
        rows[id as usize].push(r);
    }
    g.first.iter().zip(rows).map(|(&f, rs)| (keys.iter().map(|&c| beluga_runtime::Key::of(&t.cols[c], f)).collect(), rs)).collect()
}

pub fn wrap(r: &mut Registry) {
    for (name, call) in READS_TABLE {
        let Some(id) = r.lookup(name) else { continue };
        let mut row = *r.get(id);
        row.call = beluga_runtime::Call::Plain(*call);
        r.wrap(LAYER, &row);
    }
}

/// Parameters of `createTimeSeriesEngine` and its older name `createTimeSeriesAggregator`.
const TIME_SERIES_PARAMS: &[&str] = &[
    "name", "windowSize", "step", "metrics", "dummyTable", "outputTable", "timeColumn", "useSystemTime", "keyColumn", "garbageSize",
    "updateTime", "useWindowStartTime", "roundTime", "snapshotDir", "snapshotIntervalInMsgCount", "fill", "forceTriggerTime",
    "raftGroup", "keyPurgeFreqInSec", "closed", "outputElapsedMicroseconds", "subWindow", "parallelism", "acceptedDelay",
    "outputHandler", "msgAsTable",
];

/// Parameters of `createCrossSectionalEngine` and its older name `createCrossSectionalAggregator`.
const CROSS_PARAMS: &[&str] = &[
    "name", "metrics", "dummyTable", "outputTable", "keyColumn", "triggeringPattern", "triggeringInterval", "useSystemTime", "timeColumn",
    "lastBatchOnly", "contextByColumn", "snapshotDir", "snapshotIntervalInMsgCount", "raftGroup", "outputElapsedMicroseconds", "roundTime",
    "keyFilter", "updatedContextGroupsOnly",
];

pub const DEFS: &[Builtin] = &[
    f("streamTable", Kind::System, 1, u8::MAX, table::stream_table),
    fp(
        "subscribeTable",
        Kind::System,
        1,
        18,
        table::subscribe_table,
        &[
            "server", "tableName", "actionName", "offset", "handler", "msgAsTable", "batchSize", "throttle", "hash", "reconnect",
            "filter", "persistOffset", "timeTrigger", "handlerNeedMsgId", "raftGroup", "userId", "password", "udpMulticast",
        ],
    ),
    fp("unsubscribeTable", Kind::System, 1, 5, table::unsubscribe_table, &["server", "tableName", "actionName", "removeOffset", "raftGroup"]),
    fp("dropStreamTable", Kind::System, 1, 1, table::drop_stream_table, &["tableName"]),
    fp(
        "enableTableShareAndPersistence",
        Kind::System,
        2,
        10,
        table::enable_share_and_persistence,
        &["table", "tableName", "asynWrite", "compress", "cacheSize", "retentionMinutes", "flushMode", "preCache", "cachePurgeTimeColumn", "cachePurgeInterval"],
    ),
    fp("haStreamTable", Kind::System, 4, 6, table::ha_stream_table, &["raftGroup", "table", "tableName", "cacheLimit", "keyColumn", "retentionMinutes"]),
    fp("getStreamingStat", Kind::System, 0, 0, table::get_streaming_stat, &[]),
    fp(
        "replay",
        Kind::System,
        2,
        9,
        replay::replay,
        &["inputTables", "outputTables", "dateColumn", "timeColumn", "replayRate", "absoluteRate", "parallelLevel", "sortColumns", "preciseRate"],
    ),
    fp("createAnomalyDetectionEngine", Kind::System, 5, 14, anomaly::create, anomaly::PARAMS),
    fp("cachedTable", Kind::System, 2, 2, cached::cached_table, &["updateFunc", "retentionSeconds"]),
    fp("streamFilter", Kind::System, 3, 6, filter::stream_filter, &["name", "dummyTable", "filter", "msgSchema", "timeColumn", "conditionColumn"]),
    fp("getStreamEngine", Kind::System, 1, 1, engine::get_stream_engine, &["name"]),
    fp("dropStreamEngine", Kind::System, 1, 1, engine::drop_stream_engine, &["name"]),
    fp("dropAggregator", Kind::System, 1, 1, engine::drop_stream_engine, &["name"]),
    fp("getStreamEngineStat", Kind::System, 0, 0, engine::get_stream_engine_stat, &[]),
    fp(
        "createReactiveStateEngine",
        Kind::System,
        4,
        17,
        reactive::create,
        &[
            "name", "metrics", "dummyTable", "outputTable", "keyColumn", "filter", "snapshotDir", "snapshotIntervalInMsgCount", "keepOrder",
            "keyPurgeFilter", "keyPurgeFreqInSecond", "raftGroup", "outputElapsedMicroseconds", "keyCapacity", "parallelism", "outputHandler",
            "msgAsTable",
        ],
    ),
    fp(
        "createTimeSeriesEngine",
        Kind::System,
        6,
        26,
        timeseries::create,
        TIME_SERIES_PARAMS,
    ),
    fp("createAsofJoinEngine", Kind::System, 6, 14, join::create_asof, join::PARAMS.0),
    fp("createEquiJoinEngine", Kind::System, 7, 11, join::create_equi, join::PARAMS.1),
    fp("createEqualJoinEngine", Kind::System, 7, 11, join::create_equi, join::PARAMS.1),
    fp("createLookupJoinEngine", Kind::System, 6, 13, join::create_lookup, join::PARAMS.2),
    fp("createLeftSemiJoinEngine", Kind::System, 6, 10, join::create_left_semi, join::PARAMS.3),
    fp("createDailyTimeSeriesEngine", Kind::System, 6, 33, daily::create, daily::PARAMS),
    fp("createSessionWindowEngine", Kind::System, 5, 14, session::create, session::PARAMS),
    fp("appendForJoin", Kind::System, 3, 3, join::append_for_join, &["engine", "isLeftTable", "data"]),
    fp("getLeftStream", Kind::System, 1, 1, join::get_left_stream, &["engine"]),
    fp("getRightStream", Kind::System, 1, 1, join::get_right_stream, &["engine"]),
    fp("createCrossSectionalEngine", Kind::System, 3, 18, cross::create, CROSS_PARAMS),
    fp("createCrossSectionalAggregator", Kind::System, 3, 18, cross::create, CROSS_PARAMS),
    fp(
        "createTimeSeriesAggregator",
        Kind::System,
        6,
        26,
        timeseries::create,
        TIME_SERIES_PARAMS,
    ),
];
