//! Logos lexer: raw tokens with literal values already decoded, plus a small post-pass
//! (keywords, template suffixes). Context-sensitive refinement happens in `prepass`.

use crate::ast::{BinOp, JoinKind, Literal, TemporalType};
use crate::error::ParseError;
use crate::span::Span;
use logos::{Lexer, Logos};

#[derive(Default, Clone, Debug, PartialEq)]
pub struct LexError(pub String);

/// One token. The lexer produces a subset of the variants; the pre-pass produces the
/// refined ones (prefix/infix function names, SQL keywords, brace kinds, ...).
#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\f]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
pub enum Tok {
    #[token("\n")]
    Newline,
    #[token("/*", block_comment)]
    Comment,
    #[regex("[0-9]", lex_number)]
    #[token("\"", lex_dq)]
    #[token("'", lex_sq)]
    #[token("`", lex_bt)]
    Lit(Literal),
    #[regex(r"[A-Za-z_]|[^\x00-\x7F]", lex_ident)]
    Ident(String),

    // ---- produced by the post-pass / pre-pass only
    Sep,
    VecLit(Vec<Literal>),
    PrefixIdent(String),
    InfixIdent(String),
    Tmpl(Vec<String>),
    TmplApply(Vec<String>),
    OpFunc(BinOp),
    Star,
    Def,
    Defg,
    If,
    Else,
    For,
    Do,
    While,
    Break,
    Continue,
    Return,
    Try,
    Catch,
    Throw,
    Module,
    Use,
    Const,
    Share,
    Timer,
    TimerN,
    Assert,
    Select,
    Exec,
    Update,
    Delete,
    Insert,
    From,
    Where,
    And,
    Or,
    Not,
    In,
    Like,
    ILike,
    Between,
    As,
    Mutable,
    UndefAll,
    Transaction,
    Top,
    Distinct,
    GroupBy,
    ContextBy,
    PivotBy,
    CgroupBy,
    OrderBy,
    Having,
    Limit,
    Asc,
    Desc,
    NullsFirst,
    NullsLast,
    Map,
    Csort,
    On,
    JoinKw(JoinKind),
    Set,
    Values,
    Into,
    Case,
    When,
    Then,
    End,
    IsNull(bool),
    BetweenAnd,
    Exists,
    /// `union` (false) / `union all` (true) between two queries
    Union(bool),
    /// `with` starting named queries (`with t as (select …) select …`)
    With,
    LBraceDict,
    LBraceLambda,
    LBracePartial,
    LBraceDot,
    PairEnd,
    DictColon,
    MetaOpen,
    MetaClose,
    /// juxtaposition after a braced lambda: `{x -> x*x} 10`
    Apply,
    /// `@state`, `@jit`: a function annotation on the line(s) before `def`
    Annot(String),

    // ---- punctuation and operators
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(".")]
    Dot,
    #[token(":")]
    Colon,
    #[token("::")]
    ColonColon,
    #[token("?")]
    Question,
    #[token("->")]
    Arrow,
    #[token("=")]
    Assign,
    #[token("+=")]
    AddAssign,
    #[token("-=")]
    SubAssign,
    #[token("*=")]
    MulAssign,
    #[token("/=")]
    DivAssign,
    #[token("\\=")]
    RatioAssign,
    #[token("%=")]
    ModAssign,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Mul,
    #[token("/")]
    Slash,
    #[token("\\")]
    Backslash,
    #[token("%")]
    Percent,
    #[token("**")]
    StarStar,
    #[token("^")]
    Caret,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("!")]
    Bang,
    #[token("~")]
    Tilde,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("==")]
    EqEq,
    #[token("!=")]
    #[token("<>")]
    Ne,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("$")]
    Dollar,
    #[token("<-")]
    LArrow,
    #[token("..")]
    DotDot,
    #[token("...")]
    Ellipsis,
    #[token("@")]
    At,
}

impl Tok {
    /// The binary operator a token spells, if any.
    pub fn binop(&self) -> Option<BinOp> {
        use BinOp::*;
        Some(match self {
            Tok::Plus => Add,
            Tok::Minus => Sub,
            Tok::Mul => Mul,
            Tok::Slash => Div,
            Tok::Backslash => Ratio,
            Tok::Percent => Mod,
            Tok::StarStar => Dot,
            Tok::Dollar => Cast,
            Tok::LArrow => Join,
            Tok::DotDot => Seq,
            Tok::Colon => Pair,
            Tok::Shl => Shl,
            Tok::Shr => Shr,
            Tok::Amp => BitAnd,
            Tok::Caret => BitXor,
            Tok::Pipe => BitOr,
            Tok::Lt => Lt,
            Tok::Le => Le,
            Tok::Gt => Gt,
            Tok::Ge => Ge,
            Tok::EqEq => Eq,
            Tok::Ne => Ne,
            Tok::AndAnd | Tok::And => And,
            Tok::OrOr | Tok::Or => Or,
            Tok::At => At,
            Tok::In => In,
            Tok::Like => Like,
            Tok::ILike => ILike,
            Tok::Between => Between,
            _ => return None,
        })
    }
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s: &str = match self {
            Tok::Newline => "newline",
            Tok::Sep => "end of statement",
            Tok::Lit(l) => return write!(f, "literal {l:?}"),
            Tok::VecLit(_) => "vector literal",
            Tok::Ident(s) | Tok::PrefixIdent(s) | Tok::InfixIdent(s) => return write!(f, "`{s}`"),
            Tok::Tmpl(v) | Tok::TmplApply(v) => return write!(f, "`:{}`", v.join(":")),
            Tok::OpFunc(op) => return write!(f, "operator `{}`", op.func_name()),
            Tok::JoinKw(_) => "join",
            Tok::IsNull(_) => "is null",
            Tok::Union(false) => "union",
            Tok::Union(true) => "union all",
            Tok::LBrace
            | Tok::LBraceDict
            | Tok::LBraceLambda
            | Tok::LBracePartial
            | Tok::LBraceDot => "{",
            Tok::PairEnd | Tok::DictColon | Tok::Colon => ":",
            Tok::MetaOpen => "<",
            Tok::MetaClose => ">",
            Tok::RBrace => "}",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::Comma => ",",
            Tok::Semi => ";",
            Tok::Dot => ".",
            Tok::ColonColon => "::",
            Tok::Question => "?",
            Tok::Arrow => "->",
            Tok::Assign => "=",
            Tok::AddAssign => "+=",
            Tok::SubAssign => "-=",
            Tok::MulAssign => "*=",
            Tok::DivAssign => "/=",
            Tok::RatioAssign => "\\=",
            Tok::ModAssign => "%=",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Mul | Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Backslash => "\\",
            Tok::Percent => "%",
            Tok::StarStar => "**",
            Tok::Caret => "^",
            Tok::Amp => "&",
            Tok::Pipe => "|",
            Tok::Bang => "!",
            Tok::Tilde => "~",
            Tok::Shl => "<<",
            Tok::Shr => ">>",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::EqEq => "==",
            Tok::Ne => "!=",
            Tok::AndAnd => "&&",
            Tok::OrOr => "||",
            Tok::Dollar => "$",
            Tok::LArrow => "<-",
            Tok::DotDot => "..",
            Tok::Ellipsis => "...",
            Tok::At => "@",
            other => return write!(f, "{}", format!("{other:?}").to_lowercase()),
        };
        write!(f, "{s}")
    }
}

fn block_comment(lex: &mut Lexer<Tok>) -> logos::FilterResult<(), LexError> {
    match lex.remainder().find("*/") {
        Some(i) => {
            lex.bump(i + 2);
            logos::FilterResult::Skip
        }
        None => {
            let n = lex.remainder().len();
            lex.bump(n);
            logos::FilterResult::Error(LexError("unterminated block comment".into()))
        }
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || (!c.is_ascii() && c.is_alphanumeric())
}

fn lex_ident(lex: &mut Lexer<Tok>) -> Result<String, LexError> {
    let start = lex.span().start;
    let src = lex.source();
    let first = src[start..].chars().next().unwrap_or(' ');
    if !first.is_ascii() && !first.is_alphabetic() {
        return Err(LexError(format!("unexpected character `{first}`")));
    }
    let rest = lex.remainder();
    // `_"col name"`
    if first == '_' && rest.starts_with('"') {
        lex.bump(1);
        let (s, n) = scan_string(&rest[1..], '"')?;
        lex.bump(n);
        return Ok(s);
    }
    let mut n = 0;
    for c in rest.chars() {
        if is_ident_char(c) {
            n += c.len_utf8();
        } else {
            break;
        }
    }
    let after = &rest[n..];
    if after.starts_with('!') && !after.starts_with("!=") {
        n += 1;
    }
    lex.bump(n);
    Ok(src[start..start + first.len_utf8() + n].to_string())
}

/// Scans a quoted string body (after the opening quote); returns the decoded text and the
/// number of bytes consumed including the closing quote.
fn scan_string(s: &str, q: char) -> Result<(String, usize), LexError> {
    let mut out = String::new();
    let mut it = s.char_indices();
    while let Some((i, c)) = it.next() {
        if c == q {
            return Ok((out, i + 1));
        }
        if c == '\\' {
            match it.next() {
                Some((_, e)) => match e {
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    '0' => out.push('\0'),
                    '\\' => out.push('\\'),
                    '"' => out.push('"'),
                    '\'' => out.push('\''),
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                },
                None => break,
            }
        } else {
            out.push(c);
        }
    }
    Err(LexError("unterminated string".into()))
}

fn lex_dq(lex: &mut Lexer<Tok>) -> Result<Literal, LexError> {
    let (s, n) = scan_string(lex.remainder(), '"')?;
    lex.bump(n);
    Ok(Literal::Str(s))
}

fn lex_sq(lex: &mut Lexer<Tok>) -> Result<Literal, LexError> {
    let (s, n) = scan_string(lex.remainder(), '\'')?;
    lex.bump(n);
    let mut cs = s.chars();
    if let (Some(c), None) = (cs.next(), cs.next()) {
        if c.is_ascii() {
            return Ok(Literal::Char(Some(c as u8 as i8)));
        }
    }
    Ok(Literal::Str(s))
}

fn lex_bt(lex: &mut Lexer<Tok>) -> Result<Literal, LexError> {
    let rest = lex.remainder();
    let b = rest.as_bytes();
    let mut words = Vec::new();
    let mut i = 0;
    loop {
        let st = i;
        for c in rest[i..].chars() {
            if is_ident_char(c) {
                i += c.len_utf8();
            } else if c == '.' && rest[i + 1..].chars().next().is_some_and(is_ident_char) {
                i += 1;
            } else {
                break;
            }
        }
        words.push(rest[st..i].to_string());
        if i < b.len() && b[i] == b'`' {
            i += 1;
        } else {
            break;
        }
    }
    lex.bump(i);
    if words.len() == 1 {
        Ok(Literal::Str(words.pop().unwrap()))
    } else {
        Ok(Literal::StrVec(words))
    }
}

fn lex_number(lex: &mut Lexer<Tok>) -> Result<Literal, LexError> {
    let start = lex.span().start;
    let (lit, len) = scan_number(&lex.source()[start..])?;
    lex.bump(len - 1);
    Ok(lit)
}

// ------------------------------------------------------------------ numbers

fn digits(b: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < b.len() && b[j].is_ascii_digit() {
        j += 1;
    }
    j
}

fn dig(b: &[u8], i: usize) -> bool {
    i < b.len() && b[i].is_ascii_digit()
}

fn identc(s: &str, i: usize) -> bool {
    s[i..].chars().next().is_some_and(is_ident_char)
}

fn num(s: &str) -> i64 {
    s.parse::<i64>().unwrap_or(i64::MAX)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 {
                29
            } else {
                28
            }
        }
    }
}

fn bad(msg: &str, text: &str) -> LexError {
    LexError(format!("{msg}: `{text}`"))
}

/// Parses `HH:MM:SS[.fff...]` at `i`; returns (nanoseconds of day, fraction digits or
/// None, end index).
fn scan_time(s: &str, i: usize) -> Option<Result<(i64, Option<usize>, usize), LexError>> {
    let b = s.as_bytes();
    if !(dig(b, i) && dig(b, i + 1) && b.get(i + 2) == Some(&b':')) {
        return None;
    }
    if !(dig(b, i + 3) && dig(b, i + 4) && b.get(i + 5) == Some(&b':')) {
        return None;
    }
    if !(dig(b, i + 6) && dig(b, i + 7) && !dig(b, i + 8)) {
        return None;
    }
    let h = num(&s[i..i + 2]);
    let m = num(&s[i + 3..i + 5]);
    let sec = num(&s[i + 6..i + 8]);
    let mut j = i + 8;
    let mut frac = None;
    let mut ns = 0i64;
    if b.get(j) == Some(&b'.') && dig(b, j + 1) {
        let e = digits(b, j + 1);
        let nd = e - j - 1;
        if nd > 9 {
            return Some(Err(bad("too many fraction digits", &s[i..e])));
        }
        let mut v = num(&s[j + 1..e]);
        for _ in nd..9 {
            v *= 10;
        }
        ns = v;
        frac = Some(nd);
        j = e;
    }
    if h > 23 || m > 59 || sec > 59 {
        return Some(Err(bad("invalid time literal", &s[i..j])));
    }
    Some(Ok((((h * 60 + m) * 60 + sec) * 1_000_000_000 + ns, frac, j)))
}

fn scan_number(s: &str) -> Result<(Literal, usize), LexError> {
    let b = s.as_bytes();
    let d1 = digits(b, 0);
    let t1 = &s[..d1];
    // dotted forms: date, month, float
    if b.get(d1) == Some(&b'.') && dig(b, d1 + 1) {
        let j = digits(b, d1 + 1);
        let t2 = &s[d1 + 1..j];
        if b.get(j) == Some(&b'.') && dig(b, j + 1) {
            let k = digits(b, j + 1);
            let (y, m, d) = (num(t1), num(t2), num(&s[j + 1..k]));
            if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
                return Err(bad("invalid date literal", &s[..k]));
            }
            let days = days_from_civil(y, m, d);
            // DATE 'T' time or DATE ' ' time
            if matches!(b.get(k), Some(b'T') | Some(b' ')) {
                if let Some(r) = scan_time(s, k + 1) {
                    let (ns, frac, e) = r?;
                    if identc(s, e) {
                        return Err(bad("invalid temporal literal", &s[..e]));
                    }
                    let lit = match frac {
                        None => Literal::Temporal(
                            TemporalType::DateTime,
                            Some(days * 86400 + ns / 1_000_000_000),
                        ),
                        Some(n) if n <= 3 => Literal::Temporal(
                            TemporalType::Timestamp,
                            Some(days * 86_400_000 + ns / 1_000_000),
                        ),
                        Some(_) => Literal::Temporal(
                            TemporalType::NanoTimestamp,
                            Some(days * 86_400_000_000_000 + ns),
                        ),
                    };
                    return Ok((lit, e));
                }
            }
            if identc(s, k) {
                return Err(bad("invalid date literal", &s[..k + 1]));
            }
            return Ok((Literal::Temporal(TemporalType::Date, Some(days)), k));
        }
        if b.get(j) == Some(&b'M') && !identc(s, j + 1) {
            let (y, m) = (num(t1), num(t2));
            if !(1..=12).contains(&m) {
                return Err(bad("invalid month literal", &s[..j + 1]));
            }
            return Ok((Literal::Temporal(TemporalType::Month, Some(y * 12 + m - 1)), j + 1));
        }
        // float
        let mut e = j;
        if matches!(b.get(e), Some(b'e') | Some(b'E')) {
            if dig(b, e + 1) {
                e = digits(b, e + 1);
            } else if matches!(b.get(e + 1), Some(b'+') | Some(b'-')) && dig(b, e + 2) {
                e = digits(b, e + 2);
            }
        }
        let text = &s[..e];
        let v: f64 = text.parse().map_err(|_| bad("invalid number", text))?;
        return float_suffix(s, e, v, Some(t2.len()), e == j);
    }
    // `1.`: a trailing dot ends a DOUBLE literal (not `1..5`, `1.f`-style suffixes or `1.2`)
    if b.get(d1) == Some(&b'.')
        && !dig(b, d1 + 1)
        && b.get(d1 + 1) != Some(&b'.')
        && !identc(s, d1 + 1)
    {
        let v: f64 = t1.parse().map_err(|_| bad("invalid number", t1))?;
        return Ok((Literal::Double(Some(v)), d1 + 1));
    }
    // time forms
    if d1 <= 2 && b.get(d1) == Some(&b':') && dig(b, d1 + 1) && dig(b, d1 + 2) && !dig(b, d1 + 3)
    {
        let h = num(t1);
        let m = num(&s[d1 + 1..d1 + 3]);
        let j = d1 + 3;
        if b.get(j) == Some(&b'm') && !identc(s, j + 1) {
            if h > 23 || m > 59 {
                return Err(bad("invalid minute literal", &s[..j + 1]));
            }
            return Ok((Literal::Temporal(TemporalType::Minute, Some(h * 60 + m)), j + 1));
        }
        if b.get(j) == Some(&b':') && dig(b, j + 1) && dig(b, j + 2) && !dig(b, j + 3) {
            // reuse scan_time on a 2-digit-hour view
            let padded;
            let (view, off) = if d1 == 1 {
                padded = format!("0{s}");
                (padded.as_str(), 1usize)
            } else {
                (s, 0usize)
            };
            if let Some(r) = scan_time(view, 0) {
                let (ns, frac, e) = r?;
                let e = e - off;
                let (lit, e) = match frac {
                    None => {
                        let e2 = if b.get(e) == Some(&b's') && !identc(s, e + 1) { e + 1 } else { e };
                        (Literal::Temporal(TemporalType::Second, Some(ns / 1_000_000_000)), e2)
                    }
                    Some(n) if n <= 3 => {
                        (Literal::Temporal(TemporalType::Time, Some(ns / 1_000_000)), e)
                    }
                    Some(_) => (Literal::Temporal(TemporalType::NanoTime, Some(ns)), e),
                };
                if identc(s, e) {
                    return Err(bad("invalid time literal", &s[..e + 1]));
                }
                return Ok((lit, e));
            }
        }
    }
    // exponent without fraction
    if matches!(b.get(d1), Some(b'e') | Some(b'E')) {
        let mut e = d1;
        if dig(b, d1 + 1) {
            e = digits(b, d1 + 1);
        } else if matches!(b.get(d1 + 1), Some(b'+') | Some(b'-')) && dig(b, d1 + 2) {
            e = digits(b, d1 + 2);
        }
        if e > d1 {
            let v: f64 = s[..e].parse().map_err(|_| bad("invalid number", &s[..e]))?;
            return float_suffix(s, e, v, None, false);
        }
    }
    // suffix letters
    let mut e = d1;
    while e < b.len() && b[e].is_ascii_alphabetic() {
        e += 1;
    }
    let sfx = &s[d1..e];
    if identc(s, e) {
        return Err(bad("invalid numeric literal", &s[..e + 1]));
    }
    if t1 == "00" && sfx.len() == 1 {
        use TemporalType as T;
        let lit = match sfx {
            "b" => Some(Literal::Bool(None)),
            "c" => Some(Literal::Char(None)),
            "h" => Some(Literal::Short(None)),
            "i" => Some(Literal::Int(None)),
            "l" => Some(Literal::Long(None)),
            "f" => Some(Literal::Float(None)),
            "F" => Some(Literal::Double(None)),
            "d" => Some(Literal::Temporal(T::Date, None)),
            "M" => Some(Literal::Temporal(T::Month, None)),
            "t" => Some(Literal::Temporal(T::Time, None)),
            "m" => Some(Literal::Temporal(T::Minute, None)),
            "s" => Some(Literal::Temporal(T::Second, None)),
            "D" => Some(Literal::Temporal(T::DateTime, None)),
            "T" => Some(Literal::Temporal(T::Timestamp, None)),
            "n" => Some(Literal::Temporal(T::NanoTime, None)),
            "N" => Some(Literal::Temporal(T::NanoTimestamp, None)),
            _ => None,
        };
        if let Some(l) = lit {
            return Ok((l, e));
        }
    }
    let big = || bad("integer literal out of range", &s[..e]);
    let v: i64 = match t1.parse::<i64>() {
        Ok(v) => v,
        Err(_) => {
            if sfx.is_empty() {
                let f: f64 = t1.parse().map_err(|_| big())?;
                return Ok((Literal::Double(Some(f)), e));
            }
            return Err(big());
        }
    };
    let lit = match sfx {
        "" => {
            if v <= i32::MAX as i64 {
                Literal::Int(Some(v as i32))
            } else {
                Literal::Long(Some(v))
            }
        }
        "b" => Literal::Bool(Some(v != 0)),
        // 128c / 32768h / 2147483648i are accepted (wrapping) so that `-128c` etc. lex
        "c" if v == 128 => Literal::Char(Some(i8::MIN)),
        "h" if v == 32768 => Literal::Short(Some(i16::MIN)),
        "i" if v == 2147483648 => Literal::Int(Some(i32::MIN)),
        "c" => Literal::Char(Some(i8::try_from(v).map_err(|_| big())?)),
        "h" => Literal::Short(Some(i16::try_from(v).map_err(|_| big())?)),
        "i" => Literal::Int(Some(i32::try_from(v).map_err(|_| big())?)),
        "l" => Literal::Long(Some(v)),
        "f" => Literal::Float(Some(v as f32)),
        "F" => Literal::Double(Some(v as f64)),
        // `3P`: DECIMAL64 with scale 0
        "P" => Literal::Decimal(v, 0),
        "y" | "M" | "w" | "d" | "B" | "H" | "m" | "s" | "ms" | "us" | "ns" => {
            Literal::Duration(v, sfx.to_string())
        }
        _ => return Err(bad("invalid numeric literal", &s[..e])),
    };
    Ok((lit, e))
}

fn float_suffix(
    s: &str,
    e: usize,
    v: f64,
    frac_digits: Option<usize>,
    plain: bool,
) -> Result<(Literal, usize), LexError> {
    let b = s.as_bytes();
    let (lit, e) = match b.get(e) {
        Some(b'f') => (Literal::Float(Some(v as f32)), e + 1),
        Some(b'F') => (Literal::Double(Some(v)), e + 1),
        Some(b'P') if plain && frac_digits.is_some() => {
            let scale = frac_digits.unwrap_or(0).min(18);
            let text: String = s[..e].chars().filter(|c| *c != '.').collect();
            let unscaled: i64 =
                text.parse().map_err(|_| bad("decimal literal out of range", &s[..e]))?;
            (Literal::Decimal(unscaled, scale as u8), e + 1)
        }
        _ => (Literal::Double(Some(v)), e),
    };
    if identc(s, e) {
        return Err(bad("invalid numeric literal", &s[..e + 1]));
    }
    Ok((lit, e))
}

// ------------------------------------------------------------------ driver

/// A token with its span and whether whitespace (or a comment) preceded it.
#[derive(Clone, Debug)]
pub struct RawTok {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
    pub ws: bool,
}

fn keyword(s: &str) -> Option<Tok> {
    let t = match s {
        "def" => Tok::Def,
        "defg" => Tok::Defg,
        "if" => Tok::If,
        "else" => Tok::Else,
        "for" => Tok::For,
        "do" => Tok::Do,
        "while" => Tok::While,
        "break" => Tok::Break,
        "continue" => Tok::Continue,
        "return" => Tok::Return,
        "try" => Tok::Try,
        "catch" => Tok::Catch,
        "throw" => Tok::Throw,
        "module" => Tok::Module,
        "use" => Tok::Use,
        "const" => Tok::Const,
        "share" => Tok::Share,
        "timer" => Tok::Timer,
        "assert" => Tok::Assert,
        "mutable" => Tok::Mutable,
        "true" => Tok::Lit(Literal::Bool(Some(true))),
        "false" => Tok::Lit(Literal::Bool(Some(false))),
        "NULL" | "null" => Tok::Lit(Literal::Null),
        _ => {
            // SQL words and word operators are case-insensitive
            if s.len() > 7 || !s.is_ascii() {
                return None;
            }
            match s.to_ascii_lowercase().as_str() {
                "select" => Tok::Select,
                "exec" => Tok::Exec,
                "update" => Tok::Update,
                "delete" => Tok::Delete,
                "insert" => Tok::Insert,
                "from" => Tok::From,
                "where" => Tok::Where,
                "and" => Tok::And,
                "or" => Tok::Or,
                "not" => Tok::Not,
                "in" => Tok::In,
                "like" => Tok::Like,
                "ilike" => Tok::ILike,
                "between" => Tok::Between,
                "as" => Tok::As,
                _ => return None,
            }
        }
    };
    Some(t)
}

const TEMPLATE_LETTERS: &str = "ELRPOATCUXGHV";

fn template_name(s: &str) -> bool {
    let b = s.as_bytes();
    match b.len() {
        1 => TEMPLATE_LETTERS.as_bytes().contains(&b[0]),
        2 => TEMPLATE_LETTERS.as_bytes().contains(&b[0]) && b"DCUK".contains(&b[1]),
        _ => false,
    }
}

/// Lexes `src` into raw tokens (keywords resolved, template suffixes merged).
pub fn lex(src: &str) -> Result<Vec<RawTok>, ParseError> {
    let mut out: Vec<RawTok> = Vec::new();
    let mut lexer = Tok::lexer(src);
    let mut prev_end = 0usize;
    while let Some(r) = lexer.next() {
        let sp = lexer.span();
        let tok = match r {
            Ok(t) => t,
            Err(e) => {
                let msg = if e.0.is_empty() {
                    let c = src[sp.start..].chars().next().unwrap_or(' ');
                    format!("unexpected character `{}`", c.escape_debug())
                } else {
                    e.0
                };
                return Err(ParseError { message: msg, span: Span::new(sp.start, sp.end) });
            }
        };
        let ws = sp.start > prev_end || out.is_empty();
        prev_end = sp.end;
        let tok = match tok {
            // `_"NULL"`, `_"select"`: a quoted name is never a keyword
            Tok::Ident(s) if src[sp.start..].starts_with("_\"") => Tok::Ident(s),
            Tok::Ident(s) => keyword(&s).unwrap_or(Tok::Ident(s)),
            t => t,
        };
        // template suffix: `:` immediately followed by a template name
        if let Tok::Ident(name) = &tok {
            if !ws && template_name(name) {
                if let Some(last) = out.last_mut() {
                    if last.tok == Tok::Colon && last.end == sp.start {
                        let name = name.clone();
                        // stacked: `+:E:L`
                        let merged = if out.len() >= 2 {
                            let l2 = &out[out.len() - 2];
                            matches!(l2.tok, Tok::Tmpl(_)) && l2.end == out[out.len() - 1].start
                        } else {
                            false
                        };
                        out.pop();
                        if merged {
                            let l2 = out.last_mut().unwrap();
                            if let Tok::Tmpl(v) = &mut l2.tok {
                                v.push(name);
                            }
                            l2.end = sp.end;
                        } else {
                            let st = sp.start - 1;
                            let wsb = st > out.last().map(|t| t.end).unwrap_or(0);
                            out.push(RawTok {
                                tok: Tok::Tmpl(vec![name]),
                                start: st,
                                end: sp.end,
                                ws: wsb,
                            });
                        }
                        continue;
                    }
                }
            }
        }
        out.push(RawTok { tok, start: sp.start, end: sp.end, ws });
    }
    Ok(out)
}
