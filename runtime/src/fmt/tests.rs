//! Exact-string tests of the console format, mostly cases from the golden print corpus.

use super::*;
use crate::column::{ColData, Column, StrCol, SymCol};
use crate::null::Native;
use crate::table::Table;
use crate::types::DataType;
use crate::value::{Dict, DictVals, Func, Key, Matrix, SetVal, UserFunc, Value};
use ahash::AHashMap;
use std::sync::Arc;

fn show(v: &Value) -> String {
    to_console(v, &|id| format!("builtin{id}"))
}

fn ints(v: &[i32]) -> Column {
    Column::from_vec(DataType::Int, v.to_vec())
}
fn dbls(v: &[f64]) -> Column {
    Column::from_vec(DataType::Double, v.to_vec())
}
fn strs(v: &[&str]) -> Column {
    Column::new(
        DataType::String,
        ColData::Str(StrCol::from_iter(v.iter().copied())),
    )
}
fn syms(v: &[&str]) -> Column {
    Column::new(
        DataType::Symbol,
        ColData::Sym(SymCol::from_iter(v.iter().copied())),
    )
}
const N: i32 = i32::NULL;

fn table(cols: Vec<(&str, Column)>) -> Value {
    let (names, cols): (Vec<_>, Vec<_>) = cols.into_iter().map(|(n, c)| (n.to_string(), c)).unzip();
    Value::table(Table::new(names, cols).unwrap())
}

fn matrix(data: Column, rows: usize, cols: usize) -> Matrix {
    Matrix {
        data,
        rows,
        cols,
        row_labels: None,
        col_labels: None,
        indexed: false,
    }
}

fn dict(keys: Column, vals: DictVals, ordered: bool) -> Value {
    let mut index = AHashMap::new();
    for i in 0..keys.len() {
        index.insert(Key::of(&keys, i), i);
    }
    let (key_type, val_type) = (
        keys.ty,
        match &vals {
            DictVals::Col(c) => c.ty,
            DictVals::Any(_) => DataType::Any,
        },
    );
    Value::Dict(Arc::new(Dict {
        keys,
        vals,
        index,
        ordered,
        key_type,
        val_type,
    }))
}

fn set(items: Column) -> Value {
    let mut index = AHashMap::new();
    for i in 0..items.len() {
        index.insert(Key::of(&items, i), i);
    }
    Value::Set(Arc::new(SetVal { items, index }))
}

#[test]
fn doubles() {
    let cases: &[(f64, &str)] = &[
        (0.0, "0"),
        (-0.0, "0"),
        (2.0, "2"),
        (4.5, "4.5"),
        (0.8414709848, "0.841471"),
        (-0.001265, "-0.001265"),
        (50.828378, "50.828378"),
        (8103.083928, "8103.083928"),
        (13.6, "13.6"),
        (20.085536923, "20.085537"),
        (1.038095238095238, "1.038095"),
        (999999.0, "999999"),
        (999999.4, "999999.4"),
        (1e6, "1E6"),
        (6020980.0, "6.02098E6"),
        (-6020980.0, "-6.02098E6"),
        (1189796.3, "1.189796E6"),
        (12345678901.0, "1.234568E10"),
        (1e20, "1E20"),
        (2.757998e-16, "2.757998E-16"),
        (1e-6, "1E-6"),
        (1.5e-6, "0.000002"),
        (5.358979e-8, "5.358979E-8"),
        (0.000001234, "0.000001"),
        (-1e-7, "-1E-7"),
        (f64::INFINITY, "Infinity"),
    ];
    for (x, want) in cases {
        assert_eq!(format_double(*x), *want, "format_double({x:e})");
    }
    assert_eq!(format_double(f64::NULL), "");
    // a stored NaN is a value (null.rs)
    assert_eq!(format_double(f64::NAN), "NaN");
    assert_eq!(format_float(2.1f32), "2.1");
    assert_eq!(format_float(0.1f32), "0.1");
    assert_eq!(format_float(6020980.0f32), "6.02098E6");
    assert_eq!(format_float(f32::NULL), "");
}

#[test]
fn scalars() {
    assert_eq!(show(&Value::int(-2147483646)), "-2147483646");
    assert_eq!(show(&Value::double(0.727273)), "0.727273");
    assert_eq!(show(&Value::bool(true)), "true");
    assert_eq!(show(&Value::bool(false)), "false");
    assert_eq!(show(&Value::string("ABC\\DEF")), "ABC\\DEF");
    assert_eq!(show(&Value::string("ABC\"D'EF")), "ABC\"D'EF");
    assert_eq!(show(&Value::symbol("chloe")), "chloe");
    assert_eq!(
        show(&Value::scalar(DataType::Char, vec![b'c' as i8])),
        "'c'"
    );
    assert_eq!(
        show(&Value::scalar(DataType::Short, vec![-32747i16])),
        "-32747"
    );
    assert_eq!(show(&Value::Type(DataType::Int)), "INT");
    assert_eq!(show(&Value::Duration(20, "H".into())), "20H");
    assert_eq!(show(&Value::Duration(3, "XNYS".into())), "3XNYS");
    assert_eq!(show(&Value::Void), "");
    assert_eq!(show(&Value::Constant("VECTOR", 1)), "VECTOR");
    // temporal
    assert_eq!(
        show(&Value::scalar(DataType::Month, vec![2015 * 12])),
        "2015.01M"
    );
    assert_eq!(show(&Value::scalar(DataType::Minute, vec![9])), "00:09m");
    assert_eq!(
        show(&Value::scalar(DataType::Time, vec![100])),
        "00:00:00.100"
    );
    assert_eq!(
        show(&Value::scalar(DataType::DateHour, vec![1])),
        "1970.01.01T01"
    );
    assert_eq!(
        show(&Value::scalar(DataType::NanoTime, vec![1_000_000_000i64])),
        "00:00:01.000000000"
    );
}

#[test]
fn typed_null_scalars() {
    let cases = [
        (DataType::Bool, "00b"),
        (DataType::Char, "00c"),
        (DataType::Short, "00h"),
        (DataType::Int, "00i"),
        (DataType::Long, "00l"),
        (DataType::Float, "00f"),
        (DataType::Double, "00F"),
        (DataType::Date, "00d"),
        (DataType::Month, "00M"),
        (DataType::Time, "00t"),
        (DataType::Minute, "00m"),
        (DataType::Second, "00s"),
        (DataType::DateTime, "00D"),
        (DataType::Timestamp, "00T"),
        (DataType::NanoTime, "00n"),
        (DataType::NanoTimestamp, "00N"),
        (DataType::String, ""),
        (DataType::Symbol, ""),
    ];
    for (ty, want) in cases {
        assert_eq!(show(&Value::null_of(ty)), want, "{ty}");
    }
}

#[test]
fn decimals() {
    assert_eq!(format_decimal(14200, 2), "142.00");
    assert_eq!(format_decimal(142142857, 6), "142.142857");
    assert_eq!(format_decimal(-5, 2), "-0.05");
    assert_eq!(format_decimal(1000000000, 0), "1000000000");
}

#[test]
fn binary_types() {
    let v: i128 = 0xe1671797c52e15f763380b45e841ec32u128 as i128;
    assert_eq!(
        format_i128(DataType::Int128, v),
        "e1671797c52e15f763380b45e841ec32"
    );
    assert_eq!(
        format_i128(DataType::Uuid, v),
        "e1671797-c52e-15f7-6338-0b45e841ec32"
    );
    assert_eq!(format_i128(DataType::IpAddr, 0xC0A80001), "192.168.0.1");
}

#[test]
fn vectors() {
    assert_eq!(
        show(&Value::Vector(ints(&[3, N, 6, 1, N, 9]))),
        "[3,,6,1,,9]"
    );
    assert_eq!(show(&Value::Vector(ints(&[]))), "[]");
    assert_eq!(show(&Value::Vector(ints(&[N; 3]))), "[,,]");
    assert_eq!(
        show(&Value::Vector(strs(&["IBM", "MS"]))),
        "[\"IBM\",\"MS\"]"
    );
    assert_eq!(show(&Value::Vector(strs(&["", "1"]))), "[,\"1\"]");
    assert_eq!(show(&Value::Vector(syms(&["a", "b"]))), "[\"a\",\"b\"]");
    assert_eq!(show(&Value::bool_vec(vec![true, false])), "[true,false]");
    let chars = Column::from_vec(DataType::Char, vec![b'l' as i8, b'd' as i8, i8::NULL]);
    assert_eq!(show(&Value::Vector(chars)), "['l','d',]");
    assert_eq!(
        show(&Value::Vector(dbls(&[
            0.0,
            2f64.ln(),
            f64::NULL,
            3f64.ln()
        ]))),
        "[0,0.693147,,1.098612]"
    );
    assert_eq!(
        show(&Value::Vector(dbls(&[1.0, 0.25, 0.75, 0.5]))),
        "[1,0.25,0.75,0.5]"
    );
    let months = Column::from_vec(DataType::Month, vec![2015 * 12, 2015 * 12 + 11]);
    assert_eq!(show(&Value::Vector(months)), "[2015.01M,2015.12M]");
    let nt = Column::from_vec(DataType::NanoTime, vec![43_569_000_000_000i64, i64::NULL]);
    assert_eq!(show(&Value::Vector(nt)), "[12:06:09.000000000,]");
}

#[test]
fn long_vectors_are_cut() {
    let v: Vec<i32> = (0..(VEC_MAX_PRINT as i32 + 1)).collect();
    let s = show(&Value::Vector(ints(&v)));
    let head: Vec<String> = (0..VEC_HEAD).map(|i| i.to_string()).collect();
    let n = VEC_MAX_PRINT + 1;
    let tail: Vec<String> = (n - VEC_TAIL..n).map(|i| i.to_string()).collect();
    assert_eq!(s, format!("[{},...,{}]", head.join(","), tail.join(",")));
    let v: Vec<i32> = (0..VEC_MAX_PRINT as i32).collect();
    assert!(!show(&Value::Vector(ints(&v))).contains("..."));
}

#[test]
fn pairs() {
    assert_eq!(show(&Value::Pair(ints(&[3, 6]))), "3 : 6");
    assert_eq!(
        show(&Value::Pair(strs(&["USER", "it is an odd"]))),
        "\"USER\" : \"it is an odd\""
    );
    assert_eq!(show(&Value::Pair(ints(&[N, 6]))), " : 6");
}

#[test]
fn tuples() {
    let t = Value::tuple(vec![
        Value::int(1),
        Value::Vector(ints(&[2, 3])),
        Value::string("a"),
    ]);
    assert_eq!(show(&t), "(1,[2,3],\"a\")");
    assert_eq!(
        show(&Value::tuple(vec![Value::int(2), Value::Void])),
        "(2,)"
    );
    assert_eq!(
        show(&Value::tuple(vec![
            Value::int(2),
            Value::null_of(DataType::Int)
        ])),
        "(2,)"
    );
    assert_eq!(show(&Value::tuple(vec![])), "()");
    let nested = Value::tuple(vec![
        Value::int(1),
        Value::tuple(vec![
            Value::int(2),
            Value::tuple(vec![Value::int(3), Value::int(4), Value::int(5)]),
        ]),
        Value::tuple(vec![Value::int(6), Value::int(7)]),
        Value::int(8),
        Value::Vector(ints(&[9])),
    ]);
    assert_eq!(show(&nested), "(1,(2,(3,4,5)),(6,7),8,[9])");
    let with_table = Value::tuple(vec![table(vec![("a", ints(&[1]))]), Value::int(5)]);
    assert_eq!(show(&with_table), "(a\n-\n1\n,5)");
}

#[test]
fn tables() {
    let t = table(vec![
        ("a", ints(&[1, 2, 3])),
        ("b", syms(&["x", "y", "z"])),
        ("c", dbls(&[10.8, 7.6, 3.5])),
    ]);
    assert_eq!(show(&t), "a b c\n- - ----\n1 x 10.8\n2 y 7.6\n3 z 3.5");
    let t = table(vec![("id", ints(&[1, N, 3])), ("qty", ints(&[3, N, 9]))]);
    assert_eq!(show(&t), "id qty\n-- ---\n1  3\n\n3  9");
    let t = table(vec![
        ("name", strs(&["", ""])),
        ("id", ints(&[0, 0])),
        ("value", dbls(&[0.0, 0.0])),
    ]);
    assert_eq!(
        show(&t),
        "name id value\n---- -- -----\n     0  0\n     0  0"
    );
    let t = table(vec![("_a", ints(&[1])), ("2 ab", ints(&[4]))]);
    assert_eq!(show(&t), "_a 2 ab\n-- ----\n1  4");
    let empty = table(vec![("x", ints(&[])), ("y", strs(&[]))]);
    assert_eq!(show(&empty), "x y\n- -");
    let t = table(vec![("b", Column::from_vec(DataType::Bool, vec![0i8, 1]))]);
    assert_eq!(show(&t), "b\n-----\nfalse\ntrue");
}

#[test]
fn big_tables_are_cut() {
    let v: Vec<i32> = (0..(TABLE_MAX_ROWS as i32 + 1)).collect();
    let s = show(&table(vec![("x", ints(&v))]));
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines.len(), 2 + TABLE_HEAD_ROWS + 1 + TABLE_TAIL_ROWS);
    assert_eq!(lines[2 + TABLE_HEAD_ROWS], "...");
    assert_eq!(lines[1 + TABLE_HEAD_ROWS], (TABLE_HEAD_ROWS - 1).to_string());
    assert_eq!(*lines.last().unwrap(), TABLE_MAX_ROWS.to_string());
}

#[test]
fn one_truncation_rule_under_repl_limits() {
    let l = Limits { max_rows: 6, head_rows: 3, tail_rows: 2, max_elems: 8, head_elems: 3, tail_elems: 2, width: Some(12) };
    let v: Vec<i32> = (0..10).collect();
    with_limits(l, || {
        assert_eq!(show(&Value::Vector(ints(&v))), "[0,1,2,...,8,9]");
        let s = show(&table(vec![("x", ints(&v))]));
        assert_eq!(s, "x\n-\n0\n1\n2\n...\n8\n9");
        // "aaaa bbbb cccc" is 14 cells, too wide for 12: the columns that do not fit become one `...` column
        let s = show(&table(vec![("aaaa", ints(&v[..2])), ("bbbb", ints(&v[..2])), ("cccc", ints(&v[..2]))]));
        assert_eq!(s.lines().next(), Some("aaaa ..."));
    });
    // CJK text is measured by display width: two cells per character
    let names = strs(&["北京", "a"]);
    let s = show(&table(vec![("city", names), ("n", ints(&[1, 2]))]));
    assert_eq!(s, "city n\n---- -\n北京 1\na    2");
}

#[test]
fn matrices() {
    let m = matrix(ints(&[1, 2, 3, 4, 5, 6]), 2, 3);
    assert_eq!(
        show(&Value::Matrix(Arc::new(m))),
        "#0 #1 #2\n-- -- --\n1  3  5\n2  4  6"
    );
    let m = matrix(dbls(&[0.166666666, 0.4, 0.75, 1.3333333, 2.5, 6.0]), 2, 3);
    assert_eq!(
        show(&Value::Matrix(Arc::new(m))),
        "#0       #1       #2\n-------- -------- ---\n0.166667 0.75     2.5\n0.4      1.333333 6"
    );
    let m = matrix(ints(&[1, N, 5, N, 4, 6]), 2, 3);
    assert_eq!(
        show(&Value::Matrix(Arc::new(m))),
        "#0 #1 #2\n-- -- --\n1  5  4\n      6"
    );
    // labelled
    let mut m = matrix(ints(&[1, 2, 3, 4, 5, 6, 7, 8, 9]), 3, 3);
    m.col_labels = Some(Box::new(Value::Vector(syms(&["c1", "c2", "c3"]))));
    m.row_labels = Some(Box::new(Value::Vector(ints(&[1, 2, 3]))));
    assert_eq!(
        show(&Value::Matrix(Arc::new(m))),
        "  c1 c2 c3\n  -- -- --\n1|1  4  7\n2|2  5  8\n3|3  6  9"
    );
    let mut m = matrix(ints(&[1, 8, 1, 32, 1, 128]), 2, 3);
    m.col_labels = Some(Box::new(Value::Vector(ints(&[3, 5, 7]))));
    m.row_labels = Some(Box::new(Value::Vector(ints(&[1, 2]))));
    assert_eq!(
        show(&Value::Matrix(Arc::new(m))),
        "  3 5  7\n  - -- ---\n1|1 1  1\n2|8 32 128"
    );
    let mut m = matrix(ints(&[1, 2, 3]), 3, 1);
    m.col_labels = Some(Box::new(Value::Vector(syms(&["col1"]))));
    assert_eq!(show(&Value::Matrix(Arc::new(m))), "col1\n----\n1\n2\n3");
    let m = matrix(syms(&["T", "T", "T", "T"]), 2, 2);
    assert_eq!(
        show(&Value::Matrix(Arc::new(m))),
        "#0 #1\n-- --\nT  T\nT  T"
    );
}

#[test]
fn sets() {
    assert_eq!(show(&set(ints(&[5, 3, 4]))), "set(4,3,5)");
    assert_eq!(show(&set(ints(&[N]))), "set(00i)");
    assert_eq!(show(&set(ints(&[]))), "set()");
    assert_eq!(show(&set(strs(&["a", "b"]))), "set(\"b\",\"a\")");
}

#[test]
fn dicts() {
    let d = dict(
        dbls(&[2.3, 4.6, 5.3, 6.4]),
        DictVals::Col(ints(&[1, 2, 3, 1])),
        true,
    );
    assert_eq!(show(&d), "2.3->1\n4.6->2\n5.3->3\n6.4->1");
    let d = dict(
        ints(&[1, 2, 3]),
        DictVals::Col(dbls(&[6.4, 4.6, 5.3])),
        false,
    );
    assert_eq!(show(&d), "3->5.3\n2->4.6\n1->6.4");
    let d = dict(
        ints(&[N, 12]),
        DictVals::Any(vec![
            Value::Vector(ints(&[0, 1])),
            Value::Vector(ints(&[2])),
        ]),
        true,
    );
    assert_eq!(show(&d), "->[0,1]\n12->[2]");
    let d = dict(ints(&[]), DictVals::Col(dbls(&[])), false);
    assert_eq!(show(&d), "");
    // string values unquoted; table values as blocks
    let schema = dict(
        strs(&["chunkPath", "partitionColumnIndex", "colDefs"]),
        DictVals::Any(vec![
            Value::string(""),
            Value::int(-1),
            table(vec![
                ("name", strs(&["x", "y"])),
                ("typeInt", ints(&[4, 4])),
            ]),
        ]),
        true,
    );
    assert_eq!(
        show(&schema),
        "chunkPath->\npartitionColumnIndex->-1\ncolDefs->\nname typeInt\n---- -------\nx    4\ny    4"
    );
    let d = dict(
        strs(&["Coefficient", "Residual"]),
        DictVals::Any(vec![
            table(vec![("beta", dbls(&[1.5]))]),
            Value::Vector(dbls(&[6.525447, 4.223774])),
        ]),
        true,
    );
    assert_eq!(
        show(&d),
        "Coefficient->\nbeta\n----\n1.5\n\nResidual->[6.525447,4.223774]"
    );
    let inner = dict(strs(&["b"]), DictVals::Col(ints(&[1])), true);
    let d = dict(
        strs(&["a", "c"]),
        DictVals::Any(vec![inner, Value::string("x")]),
        true,
    );
    assert_eq!(show(&d), "a->\n    b->1\nc->x");
}

#[test]
fn functions() {
    let named = |id: u32| {
        if id == 7 {
            "add".to_string()
        } else {
            format!("f{id}")
        }
    };
    assert_eq!(
        to_console(&Value::Function(Func::Builtin(7)), &named),
        "add"
    );
    let p = Func::partial(Func::Builtin(7), vec![Some(Value::int(1)), None], vec![]);
    assert_eq!(to_console(&Value::Function(p), &named), "add{1, }");
    let t = Func::Template(Arc::new(Func::Builtin(7)), Arc::from("E"));
    assert_eq!(to_console(&Value::Function(t), &named), "add:E");
}

#[test]
fn closures_and_code() {
    use beluga_lang::Span;
    use beluga_lang::ast::*;
    let sp = Span::default();
    let id = |n: &str| Expr::new(ExprKind::Ident(n.into()), sp);
    let body = Expr::new(
        ExprKind::Call(
            Box::new(id("pow")),
            vec![Arg::Pos(Some(id("x"))), Arg::Pos(Some(id("k")))],
        ),
        sp,
    );
    let def = FuncDef {
        name: None,
        params: vec![Param {
            name: "k".into(),
            mutable: false,
            default: None,
            span: sp,
        }],
        body: FuncBody::Expr(Box::new(body.clone())),
        aggregate: false,
        span: sp,
        text: "def(k): pow(x,k)".into(),
        annotations: vec![],
    };
    let u = UserFunc {
        def: Arc::new(def),
        captured: vec![("x".into(), Value::int(1))],
        module: None,
    };
    assert_eq!(
        show(&Value::Function(Func::User(Arc::new(u)))),
        "{def (x, k)->power(x, k)}{1}"
    );
    // metacode
    let sum = Expr::new(
        ExprKind::Binary(
            BinOp::Mul,
            Box::new(Expr::new(
                ExprKind::Binary(BinOp::Add, Box::new(id("a")), Box::new(id("b"))),
                sp,
            )),
            Box::new(Expr::new(ExprKind::Lit(Literal::Int(Some(2))), sp)),
        ),
        sp,
    );
    assert_eq!(show(&Value::Code(Arc::new(sum))), "< (a + b) * 2 >");
    let call = Expr::new(
        ExprKind::Call(Box::new(id("avg")), vec![Arg::Pos(Some(id("bid")))]),
        sp,
    );
    assert_eq!(show(&Value::Code(Arc::new(call))), "< avg(bid) >");
    // a named user function prints its source text
    let def = FuncDef {
        name: Some("f".into()),
        params: vec![],
        body: FuncBody::Expr(Box::new(body)),
        aggregate: false,
        span: sp,
        text: "def f(): 1".into(),
        annotations: vec![],
    };
    let u = UserFunc {
        def: Arc::new(def),
        captured: vec![],
        module: None,
    };
    assert_eq!(
        show(&Value::Function(Func::User(Arc::new(u)))),
        "def f(): 1"
    );
}

#[test]
fn elements_for_string_casts() {
    let c = Column::from_vec(DataType::Char, vec![b'a' as i8]);
    assert_eq!(format_elem(&c, 0), "a");
    assert_eq!(format_elem(&dbls(&[108.5]), 0), "108.5");
    assert_eq!(format_elem(&ints(&[N]), 0), "");
    assert_eq!(
        format_elem(&Column::from_vec(DataType::Bool, vec![1i8]), 0),
        "true"
    );
}

#[test]
fn complex_prints_real_plus_imaginary() {
    let pack = |re: f64, im: f64| (((im.to_bits() as u128) << 64) | re.to_bits() as u128) as i128;
    let c = Column::new(
        DataType::Complex,
        ColData::I128(vec![pack(1.0, 3.0), pack(2.3, 4.0), pack(0.5, -2.0)]),
    );
    assert_eq!(show(&Value::Vector(c.clone())), "[1+3i,2.3+4i,0.5-2i]");
    assert_eq!(show(&Value::Scalar(c.slice(2, 3))), "0.5-2i");
}
