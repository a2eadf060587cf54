//! Regular expressions for the regex builtins in `string_regex_fns`. A pattern the
//! `regex` crate accepts (after mapping `\d \w \s \b` to their ASCII meanings) runs on
//! that crate's linear-time engines; patterns with back-references or look-ahead, which it
//! does not support, fall back to the small backtracking engine below.
//!
//! Backtracking engine syntax (ECMAScript-like): literals, `.`, `[...]` classes with ranges, negation,
//! escapes and `[:alpha:]`-style POSIX names, `^ $`, `|`, `( )` capture groups, `(?: )`,
//! look-ahead `(?= )`/`(?! )`, `* + ? {m} {m,} {m,n}` with lazy `?` variants, `\d \w \s
//! \D \W \S \b \B`, `\t \n \r \f \v \xHH \uHHHH`, back-references `\1`..`\9`.
//! Positions are byte offsets; `.` and classes consume whole UTF-8 characters.
//! A step budget turns catastrophic backtracking into an error instead of a hang, and
//! bounds on group nesting and on recursion depth turn deep patterns and long matches into
//! errors instead of stack overflows.

use beluga_runtime::{Error, Result};
use std::cell::Cell;

/// Backtracking steps allowed per search before giving up with an error.
const STEP_BUDGET: u64 = 20_000_000;
/// Deepest group nesting the backtracking parser accepts.
const MAX_NEST: usize = 200;
/// Deepest recursion of the backtracking matcher (it recurses once per matched item).
const MAX_DEPTH: usize = 100_000;

#[derive(Clone, Debug)]
enum ClassItem {
    Range(char, char),
    Digit(bool),
    Word(bool),
    Space(bool),
    Posix(fn(char) -> bool),
}

#[derive(Clone, Debug)]
struct ClassSet {
    negated: bool,
    items: Vec<ClassItem>,
}

impl ClassSet {
    fn matches(&self, c: char) -> bool {
        let hit = self.items.iter().any(|it| match *it {
            ClassItem::Range(a, b) => a <= c && c <= b,
            ClassItem::Digit(neg) => c.is_ascii_digit() != neg,
            ClassItem::Word(neg) => is_word(c) != neg,
            ClassItem::Space(neg) => is_space(c) != neg,
            ClassItem::Posix(f) => f(c),
        });
        hit != self.negated
    }
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

#[derive(Clone, Debug)]
enum Node {
    Empty,
    Lit(char),
    Any,
    Class(Box<ClassSet>),
    Start,
    End,
    WordBoundary(bool),
    Group(Box<Node>, Option<usize>),
    Look(Box<Node>, bool),
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat { node: Box<Node>, min: u32, max: u32, greedy: bool },
    Backref(usize),
}

impl Node {
    /// Matches exactly one character (repetition can then be iterative).
    fn single_char(&self) -> bool {
        matches!(self, Node::Lit(_) | Node::Any | Node::Class(_))
    }
}

/// A compiled pattern.
#[derive(Clone, Debug)]
pub struct Regex {
    root: Node,
    groups: usize,
    /// The same pattern on the `regex` crate, when it accepts it.
    fast: Option<regex::Regex>,
}

struct Parser<'a> {
    cs: Vec<char>,
    i: usize,
    groups: usize,
    src: &'a str,
    nest: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, why: &str) -> Error {
        let shown: String = self.src.chars().take(80).collect();
        let more = if shown.len() < self.src.len() { "..." } else { "" };
        Error::arg(format!("Invalid regular expression '{shown}{more}': {why}"))
    }
    fn peek(&self) -> Option<char> {
        self.cs.get(self.i).copied()
    }
    fn alt(&mut self) -> Result<Node> {
        let mut alts = vec![self.concat()?];
        while self.peek() == Some('|') {
            self.i += 1;
            alts.push(self.concat()?);
        }
        Ok(if alts.len() == 1 { alts.pop().unwrap_or(Node::Empty) } else { Node::Alt(alts) })
    }
    fn concat(&mut self) -> Result<Node> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            let atom = self.quantified(atom)?;
            items.push(atom);
        }
        Ok(match items.len() {
            0 => Node::Empty,
            1 => items.pop().unwrap_or(Node::Empty),
            _ => Node::Concat(items),
        })
    }
    /// Parse `{m}`, `{m,}`, `{m,n}` at the current `{`; None (and no advance) when not a quantifier.
    fn braces(&mut self) -> Option<(u32, u32)> {
        let start = self.i;
        let mut j = self.i + 1;
        let num = |j: &mut usize, cs: &[char]| -> Option<u32> {
            let s = *j;
            while *j < cs.len() && cs[*j].is_ascii_digit() {
                *j += 1;
            }
            if *j == s {
                return None;
            }
            cs[s..*j].iter().collect::<String>().parse().ok()
        };
        let lo = num(&mut j, &self.cs)?;
        let hi = match self.cs.get(j) {
            Some('}') => lo,
            Some(',') => {
                j += 1;
                if self.cs.get(j) == Some(&'}') {
                    u32::MAX
                } else {
                    num(&mut j, &self.cs)?
                }
            }
            _ => return None,
        };
        if self.cs.get(j) != Some(&'}') {
            self.i = start;
            return None;
        }
        self.i = j + 1;
        Some((lo, hi))
    }
    fn quantified(&mut self, atom: Node) -> Result<Node> {
        let mut node = atom;
        loop {
            let (min, max) = match self.peek() {
                Some('*') => {
                    self.i += 1;
                    (0, u32::MAX)
                }
                Some('+') => {
                    self.i += 1;
                    (1, u32::MAX)
                }
                Some('?') => {
                    self.i += 1;
                    (0, 1)
                }
                Some('{') => match self.braces() {
                    Some(q) => q,
                    None => return Ok(node),
                },
                _ => return Ok(node),
            };
            if min > max {
                return Err(self.err("bad repetition bounds"));
            }
            if matches!(node, Node::Start | Node::End | Node::WordBoundary(_) | Node::Empty) {
                return Err(self.err("nothing to repeat"));
            }
            let greedy = if self.peek() == Some('?') {
                self.i += 1;
                false
            } else {
                true
            };
            node = Node::Repeat { node: Box::new(node), min, max, greedy };
        }
    }
    fn hex(&mut self, n: usize) -> Result<char> {
        let s: String = self.cs.get(self.i..self.i + n).ok_or_else(|| self.err("bad escape"))?.iter().collect();
        let v = u32::from_str_radix(&s, 16).map_err(|_| self.err("bad escape"))?;
        self.i += n;
        char::from_u32(v).ok_or_else(|| self.err("bad escape"))
    }
    /// An escape after `\` (the backslash already consumed), outside or inside a class.
    fn escape(&mut self, in_class: bool) -> Result<Node> {
        let c = self.peek().ok_or_else(|| self.err("trailing backslash"))?;
        self.i += 1;
        let class = |it: ClassItem| Node::Class(Box::new(ClassSet { negated: false, items: vec![it] }));
        Ok(match c {
            'd' => class(ClassItem::Digit(false)),
            'D' => class(ClassItem::Digit(true)),
            'w' => class(ClassItem::Word(false)),
            'W' => class(ClassItem::Word(true)),
            's' => class(ClassItem::Space(false)),
            'S' => class(ClassItem::Space(true)),
            'b' if !in_class => Node::WordBoundary(true),
            'B' if !in_class => Node::WordBoundary(false),
            'b' => Node::Lit('\x08'),
            't' => Node::Lit('\t'),
            'n' => Node::Lit('\n'),
            'r' => Node::Lit('\r'),
            'f' => Node::Lit('\x0c'),
            'v' => Node::Lit('\x0b'),
            '0' => Node::Lit('\0'),
            'x' => Node::Lit(self.hex(2)?),
            'u' => Node::Lit(self.hex(4)?),
            '1'..='9' if !in_class => Node::Backref(c as usize - '0' as usize),
            other => Node::Lit(other),
        })
    }
    fn class(&mut self) -> Result<Node> {
        let mut set = ClassSet { negated: false, items: Vec::new() };
        if self.peek() == Some('^') {
            set.negated = true;
            self.i += 1;
        }
        let mut first = true;
        loop {
            let c = self.peek().ok_or_else(|| self.err("missing ]"))?;
            if c == ']' && !first {
                self.i += 1;
                break;
            }
            first = false;
            if c == '[' && self.cs.get(self.i + 1) == Some(&':') {
                let rest: String = self.cs[self.i..].iter().collect();
                if let Some(end) = rest.find(":]") {
                    let name = &rest[2..end];
                    let f: Option<fn(char) -> bool> = match name {
                        "alpha" => Some(|c| c.is_ascii_alphabetic()),
                        "digit" => Some(|c| c.is_ascii_digit()),
                        "alnum" => Some(|c| c.is_ascii_alphanumeric()),
                        "space" => Some(is_space),
                        "upper" => Some(|c| c.is_ascii_uppercase()),
                        "lower" => Some(|c| c.is_ascii_lowercase()),
                        "punct" => Some(|c| c.is_ascii_punctuation()),
                        "xdigit" => Some(|c| c.is_ascii_hexdigit()),
                        "blank" => Some(|c| c == ' ' || c == '\t'),
                        "cntrl" => Some(|c| c.is_ascii_control()),
                        "print" => Some(|c| (' '..='~').contains(&c)),
                        "graph" => Some(|c| ('!'..='~').contains(&c)),
                        "word" => Some(is_word),
                        _ => None,
                    };
                    if let Some(f) = f {
                        set.items.push(ClassItem::Posix(f));
                        self.i += name.chars().count() + 4;
                        continue;
                    }
                }
            }
            self.i += 1;
            let lo = if c == '\\' {
                match self.escape(true)? {
                    Node::Lit(l) => l,
                    Node::Class(s) => {
                        set.items.extend(s.items);
                        continue;
                    }
                    _ => return Err(self.err("bad escape in class")),
                }
            } else {
                c
            };
            if self.peek() == Some('-') && self.cs.get(self.i + 1).is_some_and(|&n| n != ']') {
                self.i += 1;
                let h = self.peek().ok_or_else(|| self.err("missing ]"))?;
                self.i += 1;
                let hi = if h == '\\' {
                    match self.escape(true)? {
                        Node::Lit(l) => l,
                        _ => return Err(self.err("bad class range")),
                    }
                } else {
                    h
                };
                if hi < lo {
                    return Err(self.err("bad class range"));
                }
                set.items.push(ClassItem::Range(lo, hi));
            } else {
                set.items.push(ClassItem::Range(lo, lo));
            }
        }
        Ok(Node::Class(Box::new(set)))
    }
    fn atom(&mut self) -> Result<Node> {
        let c = self.peek().ok_or_else(|| self.err("unexpected end"))?;
        self.i += 1;
        Ok(match c {
            '.' => Node::Any,
            '^' => Node::Start,
            '$' => Node::End,
            '\\' => self.escape(false)?,
            '[' => self.class()?,
            '(' => {
                let kind = if self.peek() == Some('?') {
                    let k = self.cs.get(self.i + 1).copied();
                    self.i += 2;
                    match k {
                        Some(':') => 0,
                        Some('=') => 1,
                        Some('!') => 2,
                        _ => return Err(self.err("unsupported group syntax")),
                    }
                } else {
                    3
                };
                let idx = if kind == 3 {
                    self.groups += 1;
                    Some(self.groups)
                } else {
                    None
                };
                self.nest += 1;
                if self.nest > MAX_NEST {
                    return Err(self.err("groups are nested too deeply"));
                }
                let inner = self.alt()?;
                self.nest -= 1;
                if self.peek() != Some(')') {
                    return Err(self.err("missing )"));
                }
                self.i += 1;
                match kind {
                    1 => Node::Look(Box::new(inner), true),
                    2 => Node::Look(Box::new(inner), false),
                    _ => Node::Group(Box::new(inner), idx),
                }
            }
            '*' | '+' | '?' => return Err(self.err("nothing to repeat")),
            ')' => return Err(self.err("unmatched )")),
            other => Node::Lit(other),
        })
    }
}

pub(crate) type Caps = Vec<Option<(usize, usize)>>;

struct Ctx<'s> {
    s: &'s str,
    ascii: bool,
    steps: Cell<u64>,
    depth: Cell<usize>,
}

impl<'s> Ctx<'s> {
    #[inline]
    fn char_at(&self, pos: usize) -> Option<(char, usize)> {
        if self.ascii {
            return self.s.as_bytes().get(pos).map(|&b| (b as char, 1));
        }
        self.s.get(pos..).and_then(|r| r.chars().next()).map(|c| (c, c.len_utf8()))
    }
    fn prev_char(&self, pos: usize) -> Option<char> {
        self.s.get(..pos).and_then(|r| r.chars().next_back())
    }
    fn one(&self, n: &Node, pos: usize) -> Option<usize> {
        let (c, w) = self.char_at(pos)?;
        let ok = match n {
            Node::Lit(l) => *l == c,
            Node::Any => c != '\n',
            Node::Class(set) => set.matches(c),
            _ => false,
        };
        ok.then_some(pos + w)
    }
    fn tick(&self) -> bool {
        let s = self.steps.get() + 1;
        self.steps.set(s);
        s <= STEP_BUDGET
    }

    fn m(&self, n: &Node, pos: usize, caps: &mut Caps, k: &mut dyn FnMut(usize, &mut Caps) -> bool) -> bool {
        if !self.tick() {
            return false;
        }
        let d = self.depth.get() + 1;
        if d > MAX_DEPTH {
            // too deep to continue on the stack: give up like an exhausted step budget
            self.steps.set(STEP_BUDGET + 1);
            return false;
        }
        self.depth.set(d);
        let r = self.m_inner(n, pos, caps, k);
        self.depth.set(d - 1);
        r
    }

    fn m_inner(&self, n: &Node, pos: usize, caps: &mut Caps, k: &mut dyn FnMut(usize, &mut Caps) -> bool) -> bool {
        match n {
            Node::Empty => k(pos, caps),
            Node::Lit(_) | Node::Any | Node::Class(_) => match self.one(n, pos) {
                Some(p) => k(p, caps),
                None => false,
            },
            Node::Start => pos == 0 && k(pos, caps),
            Node::End => pos == self.s.len() && k(pos, caps),
            Node::WordBoundary(want) => {
                let a = self.prev_char(pos).is_some_and(is_word);
                let b = self.char_at(pos).is_some_and(|(c, _)| is_word(c));
                ((a != b) == *want) && k(pos, caps)
            }
            Node::Group(inner, idx) => match idx {
                None => self.m(inner, pos, caps, k),
                Some(g) => {
                    let g = *g;
                    self.m(inner, pos, caps, &mut |p, c: &mut Caps| {
                        let old = c[g];
                        c[g] = Some((pos, p));
                        if k(p, c) {
                            true
                        } else {
                            c[g] = old;
                            false
                        }
                    })
                }
            },
            Node::Look(inner, positive) => {
                let saved = caps.clone();
                let found = self.m(inner, pos, caps, &mut |_, _| true);
                if found != *positive {
                    *caps = saved;
                    return false;
                }
                if !*positive {
                    *caps = saved;
                }
                k(pos, caps)
            }
            Node::Concat(items) => self.seq(items, pos, caps, k),
            Node::Alt(alts) => {
                for a in alts {
                    let saved = caps.clone();
                    if self.m(a, pos, caps, k) {
                        return true;
                    }
                    *caps = saved;
                }
                false
            }
            Node::Backref(g) => {
                let Some(Some((a, b))) = caps.get(*g).copied() else { return k(pos, caps) };
                let sub = &self.s[a..b];
                if self.s[pos..].starts_with(sub) { k(pos + sub.len(), caps) } else { false }
            }
            Node::Repeat { node, min, max, greedy } => {
                if node.single_char() {
                    // iterative: positions after 0, 1, 2 ... matches
                    let mut ends = vec![pos];
                    let mut p = pos;
                    while (ends.len() - 1) < *max as usize {
                        match self.one(node, p) {
                            Some(q) => {
                                p = q;
                                ends.push(p);
                            }
                            None => break,
                        }
                    }
                    let min = *min as usize;
                    if ends.len() - 1 < min {
                        return false;
                    }
                    if *greedy {
                        for &e in ends[min..].iter().rev() {
                            if k(e, caps) {
                                return true;
                            }
                            if !self.tick() {
                                return false;
                            }
                        }
                    } else {
                        for &e in &ends[min..] {
                            if k(e, caps) {
                                return true;
                            }
                            if !self.tick() {
                                return false;
                            }
                        }
                    }
                    false
                } else {
                    self.rep(node, *min, *max, *greedy, 0, pos, caps, k)
                }
            }
        }
    }

    fn seq(&self, items: &[Node], pos: usize, caps: &mut Caps, k: &mut dyn FnMut(usize, &mut Caps) -> bool) -> bool {
        match items.split_first() {
            None => k(pos, caps),
            Some((first, rest)) => self.m(first, pos, caps, &mut |p, c: &mut Caps| self.seq(rest, p, c, k)),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn rep(
        &self,
        node: &Node,
        min: u32,
        max: u32,
        greedy: bool,
        count: u32,
        pos: usize,
        caps: &mut Caps,
        k: &mut dyn FnMut(usize, &mut Caps) -> bool,
    ) -> bool {
        if greedy {
            if count < max && self.rep_more(node, min, max, greedy, count, pos, caps, k) {
                return true;
            }
            count >= min && k(pos, caps)
        } else {
            if count >= min && k(pos, caps) {
                return true;
            }
            count < max && self.rep_more(node, min, max, greedy, count, pos, caps, k)
        }
    }

    /// One more iteration of a repeat, then the rest of the repeat.
    #[allow(clippy::too_many_arguments)]
    fn rep_more(
        &self,
        node: &Node,
        min: u32,
        max: u32,
        greedy: bool,
        count: u32,
        pos: usize,
        caps: &mut Caps,
        k: &mut dyn FnMut(usize, &mut Caps) -> bool,
    ) -> bool {
        self.m(node, pos, caps, &mut |p: usize, c: &mut Caps| {
            // an empty iteration after the minimum would loop forever
            if p == pos && count >= min {
                return false;
            }
            self.rep(node, min, max, greedy, count + 1, p, c, k)
        })
    }
}

/// The pattern in the `regex` crate's syntax: `\d \w \s` (and negations) and `\b` with
/// their ASCII meanings as in ECMAScript; None when the pattern uses class set operators
/// the crate reads differently (`&&`, `--`, `~~` inside brackets).
fn to_crate_syntax(p: &str) -> Option<String> {
    if p.contains("&&") || p.contains("--") || p.contains("~~") {
        return None;
    }
    let mut out = String::with_capacity(p.len() + 16);
    let mut it = p.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = it.next() else {
            out.push('\\');
            break;
        };
        match e {
            'd' => out.push_str("[0-9]"),
            'D' => out.push_str("[^0-9]"),
            'w' => out.push_str("[0-9A-Za-z_]"),
            'W' => out.push_str("[^0-9A-Za-z_]"),
            's' => out.push_str("[\\t\\n\\x0B\\x0C\\r ]"),
            'S' => out.push_str("[^\\t\\n\\x0B\\x0C\\r ]"),
            'b' => out.push_str("(?-u:\\b)"),
            // back-references: the crate has none
            '1'..='9' => return None,
            _ => {
                out.push('\\');
                out.push(e);
            }
        }
    }
    Some(out)
}

impl Regex {
    pub fn new(pattern: &str) -> Result<Regex> {
        if let Some(t) = to_crate_syntax(pattern) {
            if let Ok(re) = regex::RegexBuilder::new(&t).nest_limit(MAX_NEST as u32).size_limit(64 << 20).build() {
                let groups = re.captures_len() - 1;
                return Ok(Regex { root: Node::Empty, groups, fast: Some(re) });
            }
        }
        let mut p = Parser { cs: pattern.chars().collect(), i: 0, groups: 0, src: pattern, nest: 0 };
        let root = p.alt()?;
        if p.i < p.cs.len() {
            return Err(p.err("unmatched )"));
        }
        Ok(Regex { root, groups: p.groups, fast: None })
    }

    /// Whether the pattern runs on the `regex` crate (linear time).
    pub fn is_linear(&self) -> bool {
        self.fast.is_some()
    }

    /// First match at or after byte `from`: (start, end, captures). Err when the step budget
    /// is exhausted.
    pub fn find_at(&self, s: &str, from: usize) -> Result<Option<(usize, usize, Caps)>> {
        let ctx = Ctx { s, ascii: s.is_ascii(), steps: Cell::new(0), depth: Cell::new(0) };
        self.find_in(&ctx, from, true)
    }

    fn find_in(&self, ctx: &Ctx, from: usize, want_caps: bool) -> Result<Option<(usize, usize, Caps)>> {
        let s = ctx.s;
        if let Some(re) = &self.fast {
            let mut from = from.min(s.len());
            while !s.is_char_boundary(from) {
                from += 1;
            }
            if !want_caps || self.groups == 0 {
                return Ok(re.find_at(s, from).map(|m| (m.start(), m.end(), vec![Some((m.start(), m.end()))])));
            }
            return Ok(re.captures_at(s, from).map(|c| {
                let caps: Caps = (0..c.len()).map(|g| c.get(g).map(|m| (m.start(), m.end()))).collect();
                let m0 = caps[0].unwrap_or((from, from));
                (m0.0, m0.1, caps)
            }));
        }
        ctx.steps.set(0);
        let mut start = from;
        while start <= s.len() {
            if s.is_char_boundary(start) {
                let mut caps: Caps = vec![None; self.groups + 1];
                let mut end = None;
                if ctx.m(&self.root, start, &mut caps, &mut |p, _| {
                    end = Some(p);
                    true
                }) {
                    let e = end.unwrap_or(start);
                    caps[0] = Some((start, e));
                    return Ok(Some((start, e, caps)));
                }
                if ctx.steps.get() > STEP_BUDGET {
                    return Err(Error::runtime("The regular expression is too complex (backtracking limit reached)"));
                }
                if matches!(self.root, Node::Start) || starts_anchored(&self.root) {
                    return Ok(None);
                }
            }
            start += 1;
        }
        Ok(None)
    }

    pub fn is_match(&self, s: &str) -> Result<bool> {
        Ok(self.find_at(s, 0)?.is_some())
    }

    /// Every non-overlapping match from `from` (empty matches included when `keep_empty`).
    pub fn find_all(&self, s: &str, from: usize, keep_empty: bool) -> Result<Vec<(usize, usize, Caps)>> {
        self.find_all_caps(s, from, keep_empty, true)
    }

    /// As `find_all`; group positions only when `want_caps` (otherwise just the whole match).
    pub fn find_all_caps(&self, s: &str, from: usize, keep_empty: bool, want_caps: bool) -> Result<Vec<(usize, usize, Caps)>> {
        let mut out = Vec::new();
        self.for_each_match(s, from, keep_empty, want_caps, &mut |a, b, caps| {
            out.push((a, b, caps));
            true
        })?;
        Ok(out)
    }

    /// Number of non-empty matches from `from`, without collecting them.
    pub fn count(&self, s: &str, from: usize) -> Result<usize> {
        let mut n = 0usize;
        self.for_each_match(s, from, false, false, &mut |_, _, _| {
            n += 1;
            true
        })?;
        Ok(n)
    }

    /// Visit every non-overlapping match from `from` in order (empty matches too when
    /// `keep_empty`) until `visit` returns false. Linear in the length of `s` plus the work
    /// of the matches: the string is inspected once, not once per match. Checks for an
    /// interrupt every few thousand matches.
    pub fn for_each_match(
        &self,
        s: &str,
        from: usize,
        keep_empty: bool,
        want_caps: bool,
        visit: &mut dyn FnMut(usize, usize, Caps) -> bool,
    ) -> Result<()> {
        let ctx = Ctx { s, ascii: s.is_ascii(), steps: Cell::new(0), depth: Cell::new(0) };
        let mut pos = from;
        let mut n = 0usize;
        while pos <= s.len() {
            n += 1;
            if n % 1024 == 0 {
                beluga_runtime::guard::check()?;
            }
            let Some((a, b, caps)) = self.find_in(&ctx, pos, want_caps)? else { break };
            if b == a {
                if keep_empty && !visit(a, b, caps) {
                    break;
                }
                pos = a + s[a..].chars().next().map(|c| c.len_utf8()).unwrap_or(1);
            } else {
                if !visit(a, b, caps) {
                    break;
                }
                pos = b;
            }
        }
        Ok(())
    }
}

fn starts_anchored(n: &Node) -> bool {
    match n {
        Node::Start => true,
        Node::Concat(items) => items.first().is_some_and(starts_anchored),
        Node::Group(inner, _) => starts_anchored(inner),
        _ => false,
    }
}

/// Expand `$n`, `$&` and `$$` in a replacement.
pub(crate) fn expand(rep: &str, s: &str, caps: &Caps, out: &mut String) {
    let b = rep.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'$' && i + 1 < b.len() {
            let c = b[i + 1];
            if c == b'$' {
                out.push('$');
                i += 2;
                continue;
            }
            if c == b'&' {
                if let Some(Some((x, y))) = caps.first() {
                    out.push_str(&s[*x..*y]);
                }
                i += 2;
                continue;
            }
            if c.is_ascii_digit() {
                let g = (c - b'0') as usize;
                if g < caps.len() {
                    if let Some((x, y)) = caps[g] {
                        out.push_str(&s[x..y]);
                    }
                    i += 2;
                    continue;
                }
            }
        }
        let ch_len = rep[i..].chars().next().map(|c| c.len_utf8()).unwrap_or(1);
        out.push_str(&rep[i..i + ch_len]);
        i += ch_len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(p: &str, s: &str) -> Option<(usize, usize)> {
        Regex::new(p).unwrap().find_at(s, 0).unwrap().map(|(a, b, _)| (a, b))
    }

    /// Naive reference for literal patterns: the first occurrence.
    #[test]
    fn regex_literal_matches_find() {
        let words = ["", "a", "ab", "ba", "aab", "abab", "bbb", "xyz"];
        for s in words {
            for p in ["a", "ab", "b", "ba", "bb"] {
                assert_eq!(first(p, s).map(|x| x.0), s.find(p), "{p} in {s}");
            }
        }
    }

    #[test]
    fn regex_engine_syntax() {
        assert_eq!(first("[a-z]+", "1231hsdU777"), Some((4, 7)));
        assert_eq!(first("[0-9]+$", "12ab"), None);
        assert_eq!(first("^[0-9]+", "12ab34"), Some((0, 2)));
        assert_eq!(first("a|bc", "xbc"), Some((1, 3)));
        assert_eq!(first("(ab)+c", "ababc"), Some((0, 5)));
        assert_eq!(first("a{2,3}", "caaaa"), Some((1, 4)));
        assert_eq!(first("a{2}", "caaaa"), Some((1, 3)));
        assert_eq!(first("a.*?b", "a1b2b"), Some((0, 3)));
        assert_eq!(first("a.*b", "a1b2b"), Some((0, 5)));
        assert_eq!(first("\\d+\\s\\w+", "x 12 ab"), Some((2, 7)));
        assert_eq!(first("[^0-9]+", "12ab"), Some((2, 4)));
        assert_eq!(first("\\bfoo\\b", "a foo b"), Some((2, 5)));
        assert_eq!(first("(a)\\1", "xaa"), Some((1, 3)));
        assert_eq!(first("x(?=y)", "xzxy"), Some((2, 3)));
        assert_eq!(first("[[:digit:]]+", "ab12"), Some((2, 4)));
        assert_eq!(first("é.", "aéb"), Some((1, 4)));
        assert_eq!(first("(a*)*b", "aaab"), Some((0, 4)));
        assert!(Regex::new("(a").is_err());
        assert!(Regex::new("*a").is_err());
        // the ASCII meanings of \d \w \s \b hold on the regex-crate path too
        assert!(Regex::new("\\d+").unwrap().is_linear());
        assert_eq!(first("\\d+", "x٣12"), Some((3, 5)));
        assert_eq!(first("\\w+", "éab_1"), Some((2, 6)));
        assert_eq!(first("\\bab", "éab ab"), Some((2, 4)));
        assert!(!Regex::new("(a)\\1").unwrap().is_linear());
        // catastrophic backtracking is cut off with an error, not a hang
        let s = "a".repeat(40);
        assert!(Regex::new("(a*)*c").unwrap().find_at(&s, 0).is_err() || first("(a*)*c", &s).is_none());
    }

    /// Both engines agree on a set of patterns without back-references.
    #[test]
    fn regex_engines_agree() {
        let hand = |p: &str| {
            let mut ps = Parser { cs: p.chars().collect(), i: 0, groups: 0, src: p, nest: 0 };
            let root = ps.alt().unwrap();
            Regex { root, groups: ps.groups, fast: None }
        };
        let texts = ["", "abc234 ff456", "aaa bbb aab", "2021-01-05 x", "a1b2b", "ééa b", "baaac"];
        let pats = ["[a-z]+", "\\d+", "a*", "(a|b)+", "a.*?b", "(\\d+)-(\\d+)", "^a", "b$", "\\bb\\w*", "[^ ]+", "x?", "a{2,3}"];
        for p in pats {
            let (f, h) = (Regex::new(p).unwrap(), hand(p));
            assert!(f.is_linear(), "{p}");
            for t in texts {
                let a: Vec<_> = f.find_all(t, 0, true).unwrap().into_iter().map(|(x, y, c)| (x, y, c)).collect();
                let b: Vec<_> = h.find_all(t, 0, true).unwrap();
                assert_eq!(a, b, "{p} on {t:?}");
            }
        }
    }

    #[test]
    fn deep_patterns_and_long_strings_do_not_overflow() {
        // the evaluating threads (REPL, rayon workers) have stacks of hundreds of MB; the
        // backtracking engine's depth bound is sized for those, not for a test thread's 2 MB
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(deep_patterns_body)
            .expect("spawn")
            .join()
            .expect("no panic");
    }

    fn deep_patterns_body() {
        let deep = format!("{}a{}", "(".repeat(5000), ")".repeat(5000));
        assert!(Regex::new(&deep).is_err());
        let s = "a".repeat(1_000_000);
        assert_eq!(Regex::new("(a|b)*").unwrap().find_all(&s, 0, false).unwrap().len(), 1);
        // the backtracking engine (a back-reference) gives up with an error on a long match
        let r = Regex::new("(a)(a|b)*\\1").unwrap();
        assert!(!r.is_linear());
        assert!(r.find_at(&s, 0).is_err());
    }
}
