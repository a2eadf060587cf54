//! Pre-pass, SQL: contextual keywords (`group by`, `order by`, `asc`, joins, ...), queries
//! wrapped in parentheses, `union [all]` and `with`.

use super::*;

impl<'a> Pre<'a> {
    /// Whether a query starting here is wrapped in parentheses (so that it ends where its
    /// SQL context ends): everywhere except at the start of a statement or call argument list.
    pub(super) fn query_wrapped(&self) -> bool {
        match self.last() {
            None | Some(Tok::Sep) | Some(Tok::LBrace) => false,
            Some(Tok::LParen) => self.stack.last().is_some_and(|f| f.call),
            Some(Tok::RBrace) if self.last_block_close => false,
            _ => true,
        }
    }

    /// `union [all]` at i followed by a query (`select`/`exec`, possibly parenthesised):
    /// whether it is `all`, and the index after the keyword(s). Otherwise `union` is a name
    /// (`union(s1, s2)`, `s1 union s2`).
    pub(super) fn union_pattern(&self, i: usize) -> Option<(bool, usize)> {
        let mut j = self.next_sig(i + 1);
        let all = ident_is(self.toks.get(j), "all");
        let after = if all { j + 1 } else { i + 1 };
        if all {
            j = self.next_sig(j + 1);
        }
        while self.tok(j) == Some(&Tok::LParen) {
            j = self.next_sig(j + 1);
        }
        matches!(self.tok(j), Some(Tok::Select | Tok::Exec)).then_some((all, after))
    }

    /// Ends the query on the left of `union` (wrapping it in parentheses if it started
    /// unwrapped) and emits the operator; the query on the right is wrapped as usual.
    pub(super) fn union_op(&mut self, i: usize, all: bool, next_i: usize) {
        let s = self.toks[i].start;
        let e = self.toks[next_i - 1].end;
        if let Some(k) = self.base_sql() {
            if self.sql[k].kind == SqlKind::Select {
                if let Some(c) = self.sql.pop() {
                    if !c.wrapped {
                        let at = self.out.get(c.out_pos).map(|t| t.0).unwrap_or(s);
                        self.out.insert(c.out_pos, (at, Tok::LParen, at));
                    }
                    self.emit(Tok::RParen, s, s);
                }
            }
        }
        self.emit(Tok::Union(all), s, e);
    }

    /// `with name as (`, `with name(c1, …) as (` at i.
    pub(super) fn with_pattern(&self, i: usize) -> bool {
        let mut j = self.next_sig(i + 1);
        if !matches!(self.tok(j), Some(Tok::Ident(_))) {
            return false;
        }
        j += 1;
        if self.tok(j) == Some(&Tok::LParen) {
            j += 1;
            loop {
                if !matches!(self.tok(j), Some(Tok::Ident(_))) {
                    return false;
                }
                j += 1;
                match self.tok(j) {
                    Some(Tok::Comma) => j += 1,
                    Some(Tok::RParen) => break,
                    _ => return false,
                }
            }
            j += 1;
        }
        self.tok(j) == Some(&Tok::As) && self.tok(self.next_sig(j + 1)) == Some(&Tok::LParen)
    }

    pub(super) fn with_op(&mut self, i: usize) {
        let (s, e) = (self.toks[i].start, self.toks[i].end);
        let wrapped = self.query_wrapped();
        let out_pos = self.out.len();
        if wrapped {
            self.emit(Tok::LParen, s, s);
        }
        self.sql.push(SqlCtx {
            depth: self.stack.len(),
            kind: SqlKind::With,
            wrapped,
            clause: Clause::Items,
            seen_from: false,
            in_args: false,
            out_pos,
        });
        self.emit(Tok::With, s, e);
    }


    /// SQL contextual keywords at the base depth of SQL context k.
    pub(super) fn sql_keyword(&mut self, i: usize, k: usize, lw: &str) -> Option<usize> {
        let (s, e) = (self.toks[i].start, self.toks[i].end);
        let next = self.toks.get(i + 1).cloned();
        let nx_paren = next.as_ref().is_some_and(|n| n.tok == Tok::LParen && !n.ws);
        let clause = self.sql[k].clause;
        let kind = self.sql[k].kind;
        let by = ident_is(next.as_ref(), "by");
        let two = |p: &Pre, t: Tok, c: Option<Clause>| -> (Tok, Option<Clause>, usize) {
            let _ = p;
            (t, c, 2)
        };
        let r: Option<(Tok, Option<Clause>, usize)> = match lw {
            "group" if by => Some(two(self, Tok::GroupBy, Some(Clause::Group))),
            "context" if by => Some(two(self, Tok::ContextBy, Some(Clause::Group))),
            "pivot" if by => Some(two(self, Tok::PivotBy, Some(Clause::Group))),
            "cgroup" if by => Some(two(self, Tok::CgroupBy, Some(Clause::Group))),
            "order" if by => Some(two(self, Tok::OrderBy, Some(Clause::Order))),
            "having" => Some((Tok::Having, Some(Clause::Having), 1)),
            "limit" if !nx_paren => Some((Tok::Limit, Some(Clause::Limit), 1)),
            "csort" => Some((Tok::Csort, Some(Clause::Csort), 1)),
            "top" if matches!(self.last(), Some(Tok::Select | Tok::Exec)) => {
                Some((Tok::Top, None, 1))
            }
            "distinct"
                if !nx_paren
                    && (matches!(self.last(), Some(Tok::Select | Tok::Exec))
                        || self.force_start) =>
            {
                Some((Tok::Distinct, None, 1))
            }
            "asc" if matches!(clause, Clause::Order | Clause::Csort) => {
                Some((Tok::Asc, None, 1))
            }
            "desc" if matches!(clause, Clause::Order | Clause::Csort) => {
                Some((Tok::Desc, None, 1))
            }
            "nulls" if ident_is(next.as_ref(), "first") => Some((Tok::NullsFirst, None, 2)),
            "nulls" if ident_is(next.as_ref(), "last") => Some((Tok::NullsLast, None, 2)),
            "map"
                if matches!(
                    next.as_ref().map(|t| &t.tok),
                    None | Some(Tok::Newline | Tok::Semi | Tok::RParen | Tok::RBrace)
                ) =>
            {
                Some((Tok::Map, None, 1))
            }
            "on" if clause == Clause::From => Some((Tok::On, None, 1)),
            "set" if kind == SqlKind::Update && clause == Clause::Items => {
                Some((Tok::Set, Some(Clause::Set), 1))
            }
            "values" if kind == SqlKind::Insert => Some((Tok::Values, None, 1)),
            "into" if kind == SqlKind::Insert && self.last() == Some(&Tok::Insert) => {
                Some((Tok::Into, None, 1))
            }
            "join" | "inner" | "left" | "right" | "full" | "cross" | "semijoin"
                if clause == Clause::From =>
            {
                let w = |o: usize| self.toks.get(i + o);
                let (kind, n) = match lw {
                    "join" => (Some(JoinKind::Inner), 1),
                    "inner" if ident_is(w(1), "join") => (Some(JoinKind::Inner), 2),
                    "cross" if ident_is(w(1), "join") => (Some(JoinKind::Cross), 2),
                    "left" if ident_is(w(1), "semijoin") => (Some(JoinKind::LeftSemi), 2),
                    "left" if ident_is(w(1), "semi") && ident_is(w(2), "join") => {
                        (Some(JoinKind::LeftSemi), 3)
                    }
                    "left" | "right" | "full" => {
                        let jk = match lw {
                            "left" => JoinKind::Left,
                            "right" => JoinKind::Right,
                            _ => JoinKind::Full,
                        };
                        if ident_is(w(1), "join") {
                            (Some(jk), 2)
                        } else if ident_is(w(1), "outer") && ident_is(w(2), "join") {
                            (Some(jk), 3)
                        } else {
                            (None, 0)
                        }
                    }
                    _ => (None, 0),
                };
                kind.map(|jk| (Tok::JoinKw(jk), None, n))
            }
            _ => None,
        };
        let (tok, cl, n) = r?;
        let e2 = self.toks[i + n - 1].end;
        if let Some(c) = cl {
            self.sql[k].clause = c;
        }
        let _ = e;
        self.emit(tok, s, e2);
        Some(i + n)
    }
}
