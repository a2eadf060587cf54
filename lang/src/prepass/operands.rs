//! Pre-pass, operands: literal vectors written with spaces, negative literals (§4.6) and
//! operators (template suffixes, `<...>` metacode, `=` as `==` in SQL).

use super::*;

impl<'a> Pre<'a> {
    pub(super) fn literal(&mut self, i: usize, neg_start: Option<usize>) -> usize {
        let Tok::Lit(first) = self.toks[i].tok.clone() else { return i + 1 };
        let start = neg_start.unwrap_or(self.toks[i].start);
        let first = if neg_start.is_some() { negate(first) } else { first };
        let mut lits = vec![first];
        let mut end = self.toks[i].end;
        let mut j = i + 1;
        let top = matches!(self.last(), Some(Tok::Top));
        while !top {
            let Some(t) = self.toks.get(j) else { break };
            if !t.ws {
                break;
            }
            match &t.tok {
                Tok::Lit(l) => {
                    lits.push(l.clone());
                    end = t.end;
                    j += 1;
                }
                Tok::Minus => {
                    let Some(n) = self.toks.get(j + 1) else { break };
                    match &n.tok {
                        Tok::Lit(l) if !n.ws && negatable(l) => {
                            lits.push(negate(l.clone()));
                            end = n.end;
                            j += 2;
                        }
                        _ => break,
                    }
                }
                _ => break,
            }
        }
        if lits.len() == 1 {
            self.emit(Tok::Lit(lits.pop().unwrap()), start, end);
        } else {
            let all_str = lits.iter().all(|l| matches!(l, Literal::Str(_) | Literal::StrVec(_)));
            let lits = if all_str {
                let mut v = vec![];
                for l in lits {
                    match l {
                        Literal::StrVec(ws) => v.extend(ws.into_iter().map(Literal::Str)),
                        other => v.push(other),
                    }
                }
                v
            } else {
                lits
            };
            self.emit(Tok::VecLit(lits), start, end);
        }
        if top {
            // `top n` / `top a:b`: the select list starts after it
            if self.tok(j) == Some(&Tok::Colon) {
                if let Some(RawTok { tok: Tok::Lit(l), start: ls, end: le, .. }) =
                    self.toks.get(j + 1).cloned()
                {
                    let (cs, ce) = (self.toks[j].start, self.toks[j].end);
                    self.emit(Tok::Colon, cs, ce);
                    self.emit(Tok::Lit(l), ls, le);
                    j += 2;
                }
            }
            self.force_start = true;
        }
        j
    }

    pub(super) fn operator(&mut self, i: usize) -> usize {
        let rt = self.toks[i].clone();
        let (s, e) = (rt.start, rt.end);
        let os = self.operand_start();
        let nx = self.toks.get(i + 1).cloned();
        let adj = nx.as_ref().is_some_and(|n| !n.ws);
        if rt.tok == Tok::Minus && os && adj {
            if let Some(RawTok { tok: Tok::Lit(l), .. }) = &nx {
                if negatable(l) {
                    return self.literal(i + 1, Some(s));
                }
            }
        }
        if rt.tok == Tok::Mul && os && !self.sql.is_empty() {
            self.emit(Tok::Star, s, e);
            return i + 1;
        }
        if os && matches!(nx.as_ref().map(|n| &n.tok), Some(Tok::Comma | Tok::RParen)) {
            if let Some(op) = rt.tok.binop() {
                self.emit(Tok::OpFunc(op), s, e);
                return i + 1;
            }
        }
        if rt.tok == Tok::Lt && os {
            let f = Self::frame(FK::Meta, true);
            self.push_frame(f, s, e);
            self.emit(Tok::MetaOpen, s, e);
            return i + 1;
        }
        // `<select * from t where qty > 2>`: a `>` followed by an operand on the same line
        // compares; only a `>` followed by something else closes the metacode
        if rt.tok == Tok::Gt && self.stack.last().is_some_and(|f| f.kind == FK::Meta) && !self.gt_compares(i + 1) {
            self.end_sql(s);
            let f = self.stack.pop().unwrap();
            self.emit(Tok::MetaClose, s, e);
            self.head_at_start = f.at_start;
            return i + 1;
        }
        if rt.tok == Tok::Mul && os && !self.sql.is_empty() {
            self.emit(Tok::Star, s, e);
            return i + 1;
        }
        if let Some(op) = rt.tok.binop() {
            if matches!(nx.as_ref().map(|n| &n.tok), Some(Tok::Tmpl(_))) {
                self.emit(Tok::OpFunc(op), s, e);
                if os {
                    self.head_at_start = true;
                } else {
                    self.infix_head = true;
                }
                return i + 1;
            }
            if os && matches!(nx.as_ref().map(|n| &n.tok), Some(Tok::Comma | Tok::RParen)) {
                self.emit(Tok::OpFunc(op), s, e);
                return i + 1;
            }
        }
        if os && matches!(rt.tok, Tok::Minus | Tok::Bang | Tok::Tilde) {
            self.nest += 1;
            if self.nest > MAX_NEST {
                self.fail("nesting too deep", s, e);
            }
        }
        self.emit(rt.tok, s, e);
        i + 1
    }
}
