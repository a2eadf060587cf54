//! "Did you mean …?": the closest of a set of names to a misspelled one, by edit distance
//! (case-insensitive), for unknown functions, variables and columns.

/// Levenshtein distance of two strings, compared by lowercased characters.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().flat_map(char::to_lowercase).collect();
    let b: Vec<char> = b.chars().flat_map(char::to_lowercase).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The candidate nearest to `name`, if it is close enough to be a plausible typo:
/// at most a third of the name's length in edits (at least 1, at most 3).
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).clamp(1, 3);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == name || c.starts_with("__") {
            continue;
        }
        let d = distance(name, c);
        if d <= limit && best.is_none_or(|(bd, bc)| d < bd || (d == bd && c < bc)) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_names() {
        assert_eq!(distance("pricee", "price"), 1);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(closest("pricee", ["qty", "price", "sym"]), Some("price"));
        assert_eq!(closest("mavgg", ["mavg", "msum", "avg"]), Some("mavg"));
        assert_eq!(closest("SUM", ["sum", "sum2"]), Some("sum"));
        assert_eq!(closest("xyz", ["price", "qty"]), None);
        assert_eq!(closest("ab", ["xy"]), None);
    }
}
