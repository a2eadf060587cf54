//! Precedence folding of flat operator chains (`a + b * c < d ? e : f`).
//! The grammar parses operator chains flat; this module builds the tree.

use crate::ast::{BinOp, Expr, ExprKind};
use crate::error::ParseError;

/// An operator between two operands of a chain.
#[derive(Clone, Debug)]
pub enum COp {
    Bin(BinOp),
    /// a named (or templated) binary function used infix
    Infix(Expr),
    Question,
    /// the `and` of SQL `between a and b`
    BetweenAnd,
}

#[derive(Clone, Debug)]
pub struct Chain {
    pub operands: Vec<Expr>,
    pub ops: Vec<COp>,
}

impl Chain {
    pub fn new(e: Expr) -> Chain {
        Chain { operands: vec![e], ops: vec![] }
    }
    pub fn push(mut self, op: COp, e: Expr) -> Chain {
        self.ops.push(op);
        self.operands.push(e);
        self
    }
}

const MAX_CHAIN: usize = 3000;

fn prec(op: &COp) -> u8 {
    match op {
        COp::Bin(b) => b.precedence() * 2,
        // `x at x > 3` is `at(x, x > 3)` in DolphinDB: `at` binds looser than comparisons
        COp::Infix(Expr { kind: ExprKind::Ident(n), .. }) if n == "at" => 5,
        COp::Infix(_) => 20,
        COp::BetweenAnd => 7,
        COp::Question => 0,
    }
}

pub fn fold(c: Chain) -> Result<Expr, ParseError> {
    if c.ops.len() > MAX_CHAIN {
        return Err(ParseError::new("expression too long", c.operands[0].span));
    }
    fold_parts(c.operands, c.ops)
}

fn fold_parts(mut operands: Vec<Expr>, mut ops: Vec<COp>) -> Result<Expr, ParseError> {
    // ternary: split at the first `?` and its matching `:`; the else branch folds
    // recursively (iteratively here) so `a ? b : c ? d : e` nests to the right.
    if let Some(q) = ops.iter().position(|o| matches!(o, COp::Question)) {
        let mut depth = 0;
        let mut m = None;
        for (j, o) in ops.iter().enumerate().skip(q + 1) {
            match o {
                COp::Question => depth += 1,
                COp::Bin(BinOp::Pair) => {
                    if depth == 0 {
                        m = Some(j);
                        break;
                    }
                    depth -= 1;
                }
                _ => {}
            }
        }
        let Some(m) = m else {
            return Err(ParseError::new("expected ':' in ternary expression", operands[q].span));
        };
        let else_ops = ops.split_off(m + 1);
        let else_operands = operands.split_off(m + 1);
        ops.pop(); // the ':'
        let then_ops = ops.split_off(q + 1);
        let then_operands = operands.split_off(q + 1);
        ops.pop(); // the '?'
        let cond = climb_all(operands, ops)?;
        let then = climb_all(then_operands, then_ops)?;
        let els = fold_parts(else_operands, else_ops)?;
        let span = cond.span.to(els.span);
        return Ok(Expr::new(
            ExprKind::Ternary(Box::new(cond), Box::new(then), Box::new(els)),
            span,
        ));
    }
    climb_all(operands, ops)
}

fn climb_all(operands: Vec<Expr>, ops: Vec<COp>) -> Result<Expr, ParseError> {
    let mut f = Folder {
        operands: operands.into_iter().map(Some).collect(),
        ops: ops.into_iter().map(Some).collect(),
        next: 0,
    };
    let e = f.climb(0)?;
    Ok(e)
}

struct Folder {
    operands: Vec<Option<Expr>>,
    ops: Vec<Option<COp>>,
    /// index of the next operand; the next operator is ops[next - 1]
    next: usize,
}

impl Folder {
    fn operand(&mut self) -> Result<Expr, ParseError> {
        let e = self.operands.get_mut(self.next).and_then(|o| o.take());
        self.next += 1;
        e.ok_or_else(|| ParseError::new("malformed expression", Default::default()))
    }
    fn peek(&self) -> Option<&COp> {
        if self.next == 0 {
            return None;
        }
        self.ops.get(self.next - 1).and_then(|o| o.as_ref())
    }
    fn take_op(&mut self) -> COp {
        self.ops[self.next - 1].take().unwrap_or(COp::Question)
    }

    fn climb(&mut self, min: u8) -> Result<Expr, ParseError> {
        let mut lhs = self.operand()?;
        loop {
            let Some(op) = self.peek() else { break };
            let p = prec(op);
            if p < min || matches!(op, COp::Question) {
                break;
            }
            let is_cmp = matches!(op, COp::Bin(b) if b.is_comparison());
            if is_cmp {
                let mut operands = vec![lhs];
                let mut cops = vec![];
                while let Some(COp::Bin(b)) = self.peek() {
                    if !b.is_comparison() {
                        break;
                    }
                    let b = *b;
                    self.take_op();
                    let rhs = self.climb(p + 1)?;
                    cops.push(b);
                    operands.push(rhs);
                }
                let span = operands[0].span.to(operands[operands.len() - 1].span);
                lhs = if cops.len() == 1 {
                    let r = operands.pop().unwrap();
                    let l = operands.pop().unwrap();
                    Expr::new(ExprKind::Binary(cops[0], Box::new(l), Box::new(r)), span)
                } else {
                    Expr::new(ExprKind::Compare(operands, cops), span)
                };
                continue;
            }
            let op = self.take_op();
            let rhs = self.climb(p + 1)?;
            let span = lhs.span.to(rhs.span);
            lhs = match op {
                COp::Bin(b) => Expr::new(ExprKind::Binary(b, Box::new(lhs), Box::new(rhs)), span),
                COp::BetweenAnd => {
                    Expr::new(ExprKind::Binary(BinOp::Pair, Box::new(lhs), Box::new(rhs)), span)
                }
                COp::Infix(f) => {
                    Expr::new(ExprKind::Infix(Box::new(lhs), Box::new(f), Box::new(rhs)), span)
                }
                COp::Question => unreachable!(),
            };
        }
        Ok(lhs)
    }
}
