//! Pre-pass, identifiers: function names used prefix or infix (§4.3, §4.4), macro
//! variables and words that are keywords elsewhere.

use super::*;

impl<'a> Pre<'a> {
    /// A macro-variable identifier spanning tokens up to `k`: emitted as a plain name.
    pub(super) fn ident_named(&mut self, k: usize, s: usize, name: String) -> usize {
        let e = self.toks[k].end;
        let os = self.operand_start();
        self.emit(Tok::Ident(name), s, e);
        self.head_at_start = os;
        k + 1
    }

    pub(super) fn ident(&mut self, i: usize) -> usize {
        let rt = self.toks[i].clone();
        let (s, e) = (rt.start, rt.end);
        let Tok::Ident(name) = rt.tok.clone() else { return i + 1 };
        let lw = lower(&name);
        let next = self.toks.get(i + 1).cloned();
        let next_tok = next.as_ref().map(|t| t.tok.clone());

        // `a = sum(x) b = sum(y)`: an assignment after a complete expression on the same
        // line (in a block or at the top, outside SQL) starts a new statement
        if next_tok == Some(Tok::Assign) && self.after_complete_statement() {
            self.emit_sep(s, s);
        }
        if lw == "union" && !self.operand_start() {
            if let Some((all, next_i)) = self.union_pattern(i) {
                self.union_op(i, all, next_i);
                return next_i;
            }
        }
        // `f(x) over (partition by … order by … rows …)`: a window function. The spec is
        // kept as text for the SQL engine: `f(x) __over "spec"` (an infix call)
        if lw == "over" && !self.operand_start() && self.base_sql().is_some() && next_tok == Some(Tok::LParen) {
            let mut depth = 0usize;
            let mut j = i + 1;
            while let Some(t) = self.toks.get(j) {
                match t.tok {
                    Tok::LParen => depth += 1,
                    Tok::RParen => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            if j < self.toks.len() {
                let (os, oe) = (self.toks[i + 1].end, self.toks[j].start);
                let text = self.src.get(os..oe).unwrap_or("").to_string();
                self.emit(Tok::InfixIdent("__over".into()), s, e);
                self.emit(Tok::Lit(Literal::Str(text)), self.toks[i + 1].start, self.toks[j].end);
                return j + 1;
            }
        }
        if lw == "with" && self.operand_start() && self.with_pattern(i) {
            self.with_op(i);
            return i + 1;
        }
        // SQL contextual keywords (none between `with` and its body)
        if let Some(k) = self.base_sql() {
            if self.sql[k].kind != SqlKind::With {
                if let Some(r) = self.sql_keyword(i, k, &lw) {
                    return r;
                }
            }
        }
        if lw == "case" && ident_is(self.toks.get(self.next_sig(i + 1)), "when") {
            self.case_depth += 1;
            self.emit(Tok::Case, s, e);
            return i + 1;
        }
        if self.case_depth > 0 {
            match lw.as_str() {
                "when" => {
                    self.emit(Tok::When, s, e);
                    return i + 1;
                }
                "then" => {
                    self.emit(Tok::Then, s, e);
                    return i + 1;
                }
                "end" => {
                    self.case_depth -= 1;
                    self.emit(Tok::End, s, e);
                    return i + 1;
                }
                _ => {}
            }
        }
        if lw == "is" && !self.operand_start() {
            match (self.tok(i + 1), self.tok(i + 2)) {
                (Some(Tok::Lit(Literal::Null)), _) => {
                    let e2 = self.toks[i + 1].end;
                    self.emit(Tok::IsNull(false), s, e2);
                    return i + 2;
                }
                (Some(Tok::Not), Some(Tok::Lit(Literal::Null))) => {
                    let e2 = self.toks[i + 2].end;
                    self.emit(Tok::IsNull(true), s, e2);
                    return i + 3;
                }
                _ => {}
            }
        }
        // `undef(all)`, `undef(all, SHARED)`: the `undef all` statement
        if name == "undef"
            && self.operand_start()
            && self.adjacent_paren(i)
            && ident_is(self.toks.get(i + 2), "all")
        {
            match (self.tok(i + 3), self.tok(i + 4), self.tok(i + 5)) {
                (Some(Tok::RParen), _, _) => {
                    self.emit(Tok::UndefAll, s, self.toks[i + 3].end);
                    return i + 4;
                }
                (Some(Tok::Comma), Some(Tok::Ident(k)), Some(Tok::RParen)) => {
                    let k = k.clone();
                    let (ks, ke) = (self.toks[i + 4].start, self.toks[i + 4].end);
                    self.emit(Tok::UndefAll, s, self.toks[i + 2].end);
                    self.emit(Tok::Comma, ks, ks);
                    self.emit(Tok::Ident(k), ks, ke);
                    return i + 6;
                }
                _ => {}
            }
        }
        if name == "undef" && ident_is(next.as_ref(), "all") && self.operand_start() {
            let e2 = self.toks[i + 1].end;
            self.emit(Tok::UndefAll, s, e2);
            return i + 2;
        }
        if lw == "exists"
            && next_tok == Some(Tok::LParen)
            && matches!(self.tok(i + 2), Some(Tok::Select | Tok::Exec))
        {
            self.emit(Tok::Exists, s, e);
            return i + 1;
        }
        if name == "transaction"
            && matches!(self.last(), None | Some(Tok::Sep) | Some(Tok::LBrace))
            && next_tok == Some(Tok::LBrace)
        {
            self.emit(Tok::Transaction, s, e);
            return i + 1;
        }

        let os = self.operand_start();
        let plain = matches!(
            self.last(),
            Some(
                Tok::Dot
                    | Tok::ColonColon
                    | Tok::As
                    | Tok::Def
                    | Tok::Defg
                    | Tok::Mutable
                    | Tok::Into
                    | Tok::Amp
                    | Tok::Module
                    | Tok::Use
                    | Tok::Const
            )
        ) || matches!(next_tok, Some(Tok::ColonColon | Tok::Arrow));
        if plain {
            self.emit(Tok::Ident(name), s, e);
            self.head_at_start = os;
            return i + 1;
        }
        let adj_tmpl = matches!(&next, Some(RawTok { tok: Tok::Tmpl(_), ws: false, .. }));
        if adj_tmpl {
            if os {
                self.emit(Tok::Ident(name), s, e);
                self.head_at_start = true;
            } else {
                self.emit(Tok::InfixIdent(name), s, e);
                self.infix_head = true;
                self.head_at_start = false;
            }
            return i + 1;
        }
        let f = self.is_fn(&name);
        // `print select …` at the start of a statement: a command-style call of a query
        let stmt_query = matches!(self.last(), None | Some(Tok::Sep | Tok::LBrace | Tok::RBrace))
            && matches!(next_tok, Some(Tok::Select | Tok::Exec));
        if os {
            if f && next.as_ref().is_some_and(|n| n.ws) && (self.starts_operand(i + 1) || stmt_query) {
                self.emit(Tok::PrefixIdent(name), s, e);
            } else {
                self.emit(Tok::Ident(name), s, e);
                self.head_at_start = true;
            }
        } else if f {
            self.emit(Tok::InfixIdent(name), s, e);
            self.head_at_start = false;
        } else {
            self.emit(Tok::Ident(name), s, e);
        }
        i + 1
    }
}
