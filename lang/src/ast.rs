//! The syntax tree. Plain enums; every node carries the byte span of its source text.
//! The parser only builds this tree: no evaluation, no desugaring beyond trivia.

use crate::span::Span;
/// Shared pointer used for function definitions: `Arc`, so values holding them are `Send + Sync`.
pub type Rc<T> = std::sync::Arc<T>;

/// The function marking `expr as name` inside metacode (`<avg(x) as ax>`): the parser builds
/// `META_ALIAS(expr, "name")`; the runtime's metacode functions read the alias from it and
/// evaluating it yields `expr`.
pub const META_ALIAS: &str = "__alias";

/// A literal as written in the source. Temporal literals are already converted to their
/// integer encoding (days since 1970 for DATE, ms since midnight for TIME, ...), so the
/// runtime only tags them with a type.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// `true`, `false`, `1b`, `00b` (null = None)
    Bool(Option<bool>),
    /// `'a'`, `97c`, `00c`
    Char(Option<i8>),
    /// `5h`, `00h`
    Short(Option<i16>),
    /// `21`, `21i`, `00i`
    Int(Option<i32>),
    /// `22l`, `3000000000`, `00l`
    Long(Option<i64>),
    /// `2.1f`, `00f`
    Float(Option<f32>),
    /// `2.1`, `2.1F`, `00F`
    Double(Option<f64>),
    /// `"abc"`, `'abc'`, `` `abc ``
    Str(String),
    /// `` `a`b`c `` (backtick words without whitespace between them)
    StrVec(Vec<String>),
    /// A temporal literal or typed temporal null: the type and its integer encoding.
    Temporal(TemporalType, Option<i64>),
    /// `1m`, `5s`, `3M`, `100ms`: count and unit text as written.
    Duration(i64, String),
    /// `3.14P`: DECIMAL64 literal, unscaled value and scale.
    Decimal(i64, u8),
    /// `NULL` / `null`: untyped null.
    Null,
}

/// Temporal data types that have a literal form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TemporalType {
    Date,
    Month,
    Time,
    Minute,
    Second,
    DateTime,
    Timestamp,
    NanoTime,
    NanoTimestamp,
    DateHour,
}

/// Binary operators of the flat operator chain, in DolphinDB's spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,    // +
    Sub,    // -
    Mul,    // *
    Div,    // /
    Ratio,  // \
    Mod,    // %
    Dot,    // **
    Cast,   // $
    Join,   // <-
    Seq,    // ..
    Pair,   // :
    Shl,    // <<
    Shr,    // >>
    BitAnd, // &
    BitXor, // ^
    BitOr,  // |
    Lt,
    Le,
    Gt,
    Ge,
    Eq,     // == (and = inside SQL conditions)
    Ne,     // != <>
    In,
    NotIn,
    Like,
    NotLike,
    ILike,
    Between,
    NotBetween,
    And,   // && and
    Or,    // || or
    At,    // @ (eachAt)
}

impl BinOp {
    /// The builtin function the operator maps to (`1 + 2` and `add(1, 2)` share code).
    pub fn func_name(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "add",
            Sub => "sub",
            Mul => "mul",
            Div => "div",
            Ratio => "ratio",
            Mod => "mod",
            Dot => "dot",
            Cast => "cast",
            Join => "join",
            Seq => "seq",
            Pair => "pair",
            Shl => "lshift",
            Shr => "rshift",
            BitAnd => "bitAnd",
            BitXor => "bitXor",
            BitOr => "bitOr",
            Lt => "lt",
            Le => "le",
            Gt => "gt",
            Ge => "ge",
            Eq => "eq",
            Ne => "ne",
            In => "in",
            NotIn => "notIn",
            Like => "like",
            NotLike => "notLike",
            ILike => "ilike",
            Between => "between",
            NotBetween => "notBetween",
            And => "and",
            Or => "or",
            At => "eachAt",
        }
    }

    /// Precedence, higher binds tighter (LANGUAGE.md §4.1).
    pub fn precedence(self) -> u8 {
        use BinOp::*;
        match self {
            Seq | Pair => 15,
            Mul | Div | Ratio | Mod | Dot | Cast | Join | At => 10,
            Add | Sub => 8,
            Shl | Shr => 7,
            BitAnd => 6,
            BitXor => 5,
            BitOr => 4,
            Lt | Le | Gt | Ge | Eq | Ne | In | NotIn | Like | NotLike | ILike | Between
            | NotBetween => 3,
            And => 2,
            Or => 1,
        }
    }

    pub fn is_comparison(self) -> bool {
        self.precedence() == 3
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg, // -x
    Not, // !x, not x
    BitNot, // ~x
}

/// One argument of a call or partial application.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A positional argument; `None` is an empty slot (`f(,3)`, `add{,1}`).
    Pos(Option<Expr>),
    /// `name = expr`
    Named(String, Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Lit(Literal),
    /// Space-separated literals `3 6 1` / `` `a `b `` (the runtime unifies types or makes a tuple).
    VecLit(Vec<Literal>),
    /// A name: variable, or function when no variable of that name exists.
    Ident(String),
    /// `a::b::f` (module-qualified) or `::f` (first element empty: root namespace).
    QualIdent(Vec<String>),
    /// `&name`: the function named `name` even when a variable shadows it.
    FuncRef(String),
    /// An operator used as a function value, e.g. the `+` in `+:A x` or `each(+, ...)`.
    OpFunc(BinOp),
    /// `[a, b, c]`
    Vector(Vec<Expr>),
    /// `(a, b, c)`, `(a,)`, `()`
    Tuple(Vec<Expr>),
    /// `{k: v, ...}` JSON-like dictionary literal
    Dict(Vec<(Expr, Expr)>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// Chained comparison `a < b <= c`: operands and the operators between them (len = operands - 1 >= 2).
    Compare(Vec<Expr>, Vec<BinOp>),
    /// `x f y` with a named binary function (or a templated one, `x f:E y`): (left, function, right).
    Infix(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `cond ? a : b`
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    /// Open-ended pair inside an index: `x[1:]`, `x[:3]`, `x[:]`.
    OpenPair(Option<Box<Expr>>, Option<Box<Expr>>),
    /// `f(args)`, `f[args]` on a function, prefix call `sum x` (one positional arg).
    Call(Box<Expr>, Vec<Arg>),
    /// `f{args}` partial application
    Partial(Box<Expr>, Vec<Arg>),
    /// `x[i]`, `x[i, j]`, `x[, j]` (None = all)
    Index(Box<Expr>, Vec<Option<Expr>>),
    /// `x.name` without parentheses: column, dict key, or zero-argument method call.
    Member(Box<Expr>, String),
    /// `x.f(args)`: call `f(x, args...)`; `x.f{args}(more)` is `Call(Partial(..))` built by the parser.
    Method(Box<Expr>, String, Vec<Arg>),
    /// `f:E` and friends: template name letters as written (`"E"`, `"A"`, `"EC"`...).
    Template(Box<Expr>, String),
    /// `def (x) { ... }`, `x -> expr`, `{x, y -> x + y}`
    Lambda(Rc<FuncDef>),
    /// `select`/`exec` as an expression.
    Select(Box<SelectQuery>),
    /// `q1 union q2` / `q1 union all q2` (all = true): the operands are queries (select/exec,
    /// parenthesised, or another union); left-associative.
    Union(Box<Expr>, Box<Expr>, bool),
    /// `with n1 as (q1), n2(c1, c2) as (q2) body`: named queries, each visible in the later
    /// ones and in the body (a select/exec or a union).
    With(Vec<Cte>, Box<Expr>),
    /// `<expr>` metacode
    Meta(Box<Expr>),
    /// `case when c then v ... else e end` (SQL)
    Case(Vec<(Expr, Expr)>, Option<Box<Expr>>),
    /// `x is null` / `x is not null` (negated = true)
    IsNull(Box<Expr>, bool),
    /// `exists (select ...)`
    Exists(Box<SelectQuery>),
    /// A quantified comparison of a `where`/`having` condition, `x op any(s)` or
    /// `x op all(s)` (progr/sql/any.md): (op, whether `all`, x, s). `op` is one of
    /// `< <= > >= == !=`; `s` is a query or a vector, evaluated once.
    Quantified(BinOp, bool, Box<Expr>, Box<Expr>),
    /// SQL `*` in a select list or `count(*)`.
    Star,
    /// `price1...price5` column sequence in a select list.
    ColumnSeq(String, String),
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub mutable: bool,
    pub default: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FuncDef {
    /// None for lambdas.
    pub name: Option<String>,
    pub params: Vec<Param>,
    pub body: FuncBody,
    /// `defg`: an aggregate function for SQL.
    pub aggregate: bool,
    pub span: Span,
    /// Source text of the definition (used when a function value is printed).
    pub text: String,
    /// `@state`, `@jit`… written on the line(s) before `def`, without the `@`.
    pub annotations: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FuncBody {
    /// `{ stmts }`: returns only through `return`.
    Block(Vec<Stmt>),
    /// `: expr`, `-> expr`: returns the expression.
    Expr(Box<Expr>),
    /// `def f(a, b)` forward declaration.
    Forward,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    Set,   // =
    Add,   // +=
    Sub,   // -=
    Mul,   // *=
    Div,   // /=
    Ratio, // \=
    Mod,   // %=
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Expr(Expr),
    /// `a = e`, `a, b = e`, `x[i] += e`, `t.c = e`. Targets are Ident, Index or Member expressions.
    Assign(Vec<Expr>, AssignOp, Expr),
    /// `&y = x`
    RefAssign(String, Expr),
    /// `const a = 10`
    Const(String, Expr),
    Def(Rc<FuncDef>),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    /// `for (var in iter) body`
    For(String, Expr, Box<Stmt>),
    While(Expr, Box<Stmt>),
    /// `do { body } while (cond)`
    DoWhile(Box<Stmt>, Expr),
    Break,
    Continue,
    Return(Option<Expr>),
    /// `try { body } catch (var) { handler }`
    Try(Box<Stmt>, Option<String>, Box<Stmt>),
    Throw(Expr),
    Block(Vec<Stmt>),
    /// `share expr as name`
    Share(Expr, String),
    /// `undef all` / `undef all, VAR` (the function form `undef(...)` is an ordinary call)
    UndefAll(Option<String>),
    /// `module a::b`
    Module(Vec<String>),
    /// `use a::b`
    Use(Vec<String>),
    /// `timer stmt`, `timer(n) stmt`
    Timer(Option<Expr>, Box<Stmt>),
    /// `assert expr`, `assert sub, expr` (sub as text)
    Assert(Option<String>, Expr),
    Update(Box<UpdateStmt>),
    Delete(Box<DeleteStmt>),
    Insert(Box<InsertStmt>),
    /// `transaction { ... }`
    Transaction(Vec<Stmt>),
    /// Empty statement (a lone `;`).
    Empty,
}

// ------------------------------------------------------------------ SQL

#[derive(Clone, Debug, PartialEq)]
pub struct SelectItem {
    pub expr: Expr,
    /// `as name`, or several names for `as `a`b` (multi-column results).
    pub alias: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OrderItem {
    pub expr: Expr,
    pub asc: bool,
    /// Some(true) = nulls first, Some(false) = nulls last.
    pub nulls_first: Option<bool>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    Left,
    LeftSemi,
    Right,
    Full,
    Cross,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FromItem {
    /// A table expression (variable, call such as `loadTable(...)`/`ej(...)`, or subquery) with an optional alias.
    Table(Expr, Option<String>),
    /// `a [inner|left|...] join b [on cond]`
    Join(Box<FromItem>, JoinKind, Box<FromItem>, Option<Expr>),
}

/// One named query of `with`: `name[(columns…)] as (query)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Cte {
    pub name: String,
    /// Column renames (`tmp(a, b) as (…)`); empty keeps the query's names.
    pub columns: Vec<String>,
    pub query: Expr,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupKind {
    GroupBy,
    ContextBy,
    PivotBy,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SelectQuery {
    /// `exec` instead of `select`
    pub exec: bool,
    /// `top n` / `top a:b`
    pub top: Option<(Expr, Option<Expr>)>,
    pub distinct: bool,
    pub items: Vec<SelectItem>,
    pub from: Option<FromItem>,
    /// comma-separated conditions, applied in order
    pub where_: Vec<Expr>,
    pub group: Option<(GroupKind, Vec<SelectItem>)>,
    /// `cgroup by`
    pub cgroup: Vec<SelectItem>,
    pub csort: Vec<OrderItem>,
    pub having: Option<Expr>,
    pub order: Vec<OrderItem>,
    /// `limit n` / `limit offset, n`
    pub limit: Option<(Option<Expr>, Expr)>,
    pub map: bool,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct UpdateStmt {
    pub table: Expr,
    pub sets: Vec<(String, Expr)>,
    pub from: Option<FromItem>,
    pub where_: Vec<Expr>,
    pub context_by: Vec<SelectItem>,
    pub csort: Vec<OrderItem>,
    pub having: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DeleteStmt {
    pub table: Expr,
    pub where_: Vec<Expr>,
    /// `delete t from ej(t, t2, key) where …` (progr/sql/delete.md): the rows of t that
    /// the join (and the conditions) keep are deleted.
    pub from: Option<FromItem>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum InsertSource {
    /// rows of values: each row a list of expressions
    Values(Vec<Vec<Expr>>),
    Select(Box<SelectQuery>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct InsertStmt {
    pub table: Expr,
    pub columns: Vec<String>,
    pub source: InsertSource,
}
