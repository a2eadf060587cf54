//! Every builtin except storage's, one module per family; `register` adds them all.

pub mod agg;
pub mod agg_group;
pub mod agg_order;
pub mod agg_stats;
pub mod linalg;
pub mod linalg_decomp;
pub mod math_calc;
pub mod math_ops;
pub mod math_util;
#[cfg(test)]
mod agg_tests;
#[cfg(test)]
mod math_tests;
#[cfg(test)]
mod stats_tests;
pub mod containers;
pub mod containers_access;
pub mod containers_fill;
pub mod containers_misc;
pub mod containers_shift;
mod containers_tests;
pub mod convert;
pub mod convert_build;
pub mod convert_json;
pub mod convert_json_write;
pub mod docs;
pub mod plot;
pub mod core;
pub mod encoding;
pub mod cum;
pub mod join;
pub mod math;
pub mod order;
pub mod order_search;
pub mod random;
pub mod reshape;
pub mod reshape_bar;
pub mod reshape_stats;
pub mod hof;
pub mod hof_time;
pub mod meta;
pub mod system;
pub mod system_io;
pub mod stats;
pub mod stats_desc;
pub mod stats_dist;
pub mod stats_ewm;
pub mod stats_ml;
pub mod stats_model;
pub mod string;
pub mod string_format;
pub mod string_core;
pub mod string_regex;
pub mod string_regex_fns;
pub mod string_text;
pub mod table;
pub mod temporal;
pub mod temporal_arith;
pub mod temporal_cal;
pub mod temporal_core;
pub mod temporal_period;
pub mod temporal_tz;
pub mod testing;
pub mod util;
pub mod tm;
pub mod window;
pub mod window_fast;
pub mod cum_misc;
pub mod finance;
pub mod row;
pub mod row_md5;
pub mod row_misc;
pub mod row_pair;
pub mod series;
pub mod ta;
pub mod topn;
pub mod window_fns;
pub mod window_kernels;
pub mod window_misc;
pub mod window_order;
#[cfg(test)]
pub mod window_proptests;
#[cfg(test)]
mod window_tests;
#[cfg(test)]
mod row_tests;
pub mod window_stats;
pub mod window_time;

use beluga_runtime::Registry;

/// Register every stdlib builtin (and the interpreter's higher-order functions).
pub fn register(r: &mut Registry) {
    r.extend(beluga_runtime::eval::ADVERB_DEFS);
    for defs in [
        core::DEFS,
        math::DEFS,
        agg::DEFS,
        cum::DEFS,
        window::DEFS,
        tm::DEFS,
        string::DEFS,
        convert::DEFS,
        convert_build::DEFS,
        convert_json::DEFS,
        convert_json_write::DEFS,
        string_regex_fns::DEFS,
        string_format::DEFS,
        string_text::DEFS,
        encoding::DEFS,
        temporal::DEFS,
        temporal_arith::DEFS,
        temporal_cal::DEFS,
        temporal_period::DEFS,
        temporal_tz::DEFS,
        containers::DEFS,
        containers_access::DEFS,
        containers_fill::DEFS,
        containers_misc::DEFS,
        containers_shift::DEFS,
        order::DEFS,
        order_search::DEFS,
        stats::DEFS,
        agg_order::DEFS,
        agg_stats::DEFS,
        linalg::DEFS,
        linalg_decomp::DEFS,
        math_calc::DEFS,
        math_ops::DEFS,
        stats_desc::DEFS,
        stats_dist::DEFS,
        stats_ewm::DEFS,
        stats_ml::DEFS,
        stats_model::DEFS,
        random::DEFS,
        table::DEFS,
        reshape::DEFS,
        reshape_bar::DEFS,
        reshape_stats::DEFS,
        hof::DEFS,
        hof_time::DEFS,
        meta::DEFS,
        system::DEFS,
        system_io::DEFS,
        join::DEFS,
        topn::DEFS,
        ta::DEFS,
        row::DEFS,
        finance::DEFS,
        series::DEFS,
        docs::DEFS,
        plot::DEFS,
    ] {
        r.extend(defs);
    }
    r.set_caps(CAPS);
    set_kernels(r);
    // the rows expose their one-line doc and example (docs.tsv, joined by name)
    for d in docs::all() {
        r.set_doc(d.name, d.doc, d.example);
    }
}

/// Capability slots of the rows registered above, read by the SQL planner: one-pass
/// group-by kernels of the aggregates and their map-reduce splits (agg_group.rs), and
/// segmented `context by` kernels of the window families (m*, tm*, cum*, TopN, TA-lib...).
/// Every listed name must be a registered row (`kernel_rows_are_registered` tests it).
pub fn set_kernels(r: &mut Registry) -> Vec<String> {
    let mut missing = r.set_kernels(agg_group::GROUPED, |c| c.grouped = Some(agg::grouped));
    missing.extend(r.set_kernels(agg_group::GROUPED2, |c| c.grouped2 = Some(agg::grouped2)));
    for (name, split) in agg_group::SPLITS {
        missing.extend(r.set_kernels(&[name], |c| c.split = Some(*split)));
    }
    missing.extend(r.set_kernels(&window::segmented_names(), |c| c.segmented = Some(window::context_kernel)));
    missing
}

use beluga_runtime::registry::Cap;

/// The stdlib builtins that do more than compute (see `beluga_runtime::policy`): name,
/// capability, positions of path arguments. Builtins working on an open file handle need
/// nothing more: the handle was admitted when `file` opened it.
const CAPS: &[(&str, Cap, &[u8])] = &[
    ("exists", Cap::READ, &[0]),
    ("file", Cap::READ.with(Cap::WRITE), &[0]),
    ("mkdir", Cap::WRITE, &[0]),
    ("rm", Cap::DELETE, &[0]),
    ("rmdir", Cap::DELETE, &[0]),
    ("saveTextFile", Cap::WRITE, &[1]),
    ("run", Cap::RUN.with(Cap::READ), &[]),
    ("getEnv", Cap::ENV, &[]),
    ("getHomeDir", Cap::ENV, &[]),
];
