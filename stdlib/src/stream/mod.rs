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
//! * `table`: `streamTable`, `subscribeTable`, `unsubscribeTable`, `getStreamingStat`.
//! * `engine`: the engine handle, the registry of engines by name, output targets,
//!   `getStreamEngine`, `dropStreamEngine`, `getStreamEngineStat`.
//! * `reactive`: `createReactiveStateEngine`.
//! * `timeseries`: `createTimeSeriesEngine`.

pub mod engine;
pub mod reactive;
pub mod table;
pub mod timeseries;

use beluga_runtime::registry::{f, fp};
use beluga_runtime::{Builtin, Kind};

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
    fp("getStreamingStat", Kind::System, 0, 0, table::get_streaming_stat, &[]),
    fp("getStreamEngine", Kind::System, 1, 1, engine::get_stream_engine, &["name"]),
    fp("dropStreamEngine", Kind::System, 1, 1, engine::drop_stream_engine, &["name"]),
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
        &[
            "name", "windowSize", "step", "metrics", "dummyTable", "outputTable", "timeColumn", "useSystemTime", "keyColumn", "garbageSize",
            "updateTime", "useWindowStartTime", "roundTime", "snapshotDir", "snapshotIntervalInMsgCount", "fill", "forceTriggerTime",
            "raftGroup", "keyPurgeFreqInSec", "closed", "outputElapsedMicroseconds", "subWindow", "parallelism", "acceptedDelay",
            "outputHandler", "msgAsTable",
        ],
    ),
    fp(
        "createTimeSeriesAggregator",
        Kind::System,
        6,
        26,
        timeseries::create,
        &[
            "name", "windowSize", "step", "metrics", "dummyTable", "outputTable", "timeColumn", "useSystemTime", "keyColumn", "garbageSize",
            "updateTime", "useWindowStartTime", "roundTime", "snapshotDir", "snapshotIntervalInMsgCount", "fill", "forceTriggerTime",
            "raftGroup", "keyPurgeFreqInSec", "closed", "outputElapsedMicroseconds", "subWindow", "parallelism", "acceptedDelay",
            "outputHandler", "msgAsTable",
        ],
    ),
];
