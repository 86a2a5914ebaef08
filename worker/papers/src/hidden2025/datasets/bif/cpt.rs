//! Checks of the CPT blocks of a BIF file and the topological order (see [`super`]'s docs for
//! what is refused).

use std::collections::HashMap;

use super::{BifVariable, RawCpt, SUM_TOLERANCE, Tok, err};
use crate::params::ParamError;

pub(super) fn probabilities(
    file: &str,
    line: usize,
    who: &str,
    k: usize,
    vals: &[Tok],
) -> Result<Vec<f64>, ParamError> {
    if vals.len() != k {
        return Err(err(
            file,
            line,
            format!("{who}: {} probabilities for {k} states", vals.len()),
        ));
    }
    let mut out = Vec::with_capacity(k);
    for v in vals {
        let x: f64 = v
            .text
            .parse()
            .map_err(|_| err(file, v.line, format!("{who}: {:?} is not a number", v.text)))?;
        if !(0.0..=1.0).contains(&x) {
            return Err(err(
                file,
                v.line,
                format!("{who}: probability {x} is outside [0, 1]"),
            ));
        }
        out.push(x);
    }
    let s: f64 = out.iter().sum();
    if (s - 1.0).abs() > SUM_TOLERANCE {
        return Err(err(
            file,
            line,
            format!("{who}: the row sums to {s}, not 1 (tolerance {SUM_TOLERANCE:e})"),
        ));
    }
    Ok(out)
}

pub(super) fn fill_cpt(
    file: &str,
    variables: &mut [BifVariable],
    index: &HashMap<String, usize>,
    has_cpt: &mut [bool],
    r: RawCpt,
) -> Result<(), ParamError> {
    let name = &r.child.text;
    let j = *index.get(name).ok_or_else(|| {
        err(
            file,
            r.child.line,
            format!("probability block for undeclared variable {name}"),
        )
    })?;
    if has_cpt[j] {
        return Err(err(
            file,
            r.child.line,
            format!("variable {name} has a repeated probability block (CPT)"),
        ));
    }
    has_cpt[j] = true;
    let mut parents = Vec::with_capacity(r.parents.len());
    for t in &r.parents {
        let q = *index.get(&t.text).ok_or_else(|| {
            err(
                file,
                t.line,
                format!("variable {name}: undeclared parent {}", t.text),
            )
        })?;
        if parents.contains(&q) || q == j {
            return Err(err(
                file,
                t.line,
                format!(
                    "variable {name}: parent {} is repeated or is the variable itself",
                    t.text
                ),
            ));
        }
        parents.push(q);
    }
    let k = variables[j].states.len();
    let radices: Vec<usize> = parents.iter().map(|&q| variables[q].states.len()).collect();
    let n_configs = radices
        .iter()
        .try_fold(1usize, |a, &b| a.checked_mul(b))
        .filter(|&n| n <= 1 << 24)
        .ok_or_else(|| {
            err(
                file,
                r.child.line,
                format!("variable {name}: too many parent configurations"),
            )
        })?;
    let cpt = if parents.is_empty() {
        if let Some((line, _, _)) = r.rows.first() {
            return Err(err(
                file,
                *line,
                format!(
                    "variable {name} has no parents: extra CPT row keyed by parent states (use `table`)"
                ),
            ));
        }
        let (line, vals) = r.table.as_ref().ok_or_else(|| {
            err(
                file,
                r.child.line,
                format!("variable {name}: missing `table` row"),
            )
        })?;
        probabilities(file, *line, &format!("variable {name}"), k, vals)?
    } else {
        conditional_rows(
            file,
            variables,
            name,
            &parents,
            &radices,
            &r,
            (n_configs, k),
        )?
    };
    variables[j].parents = parents;
    variables[j].cpt = cpt;
    Ok(())
}

/// The CPT of a variable with parents from its `(states) p, …;` rows, one per parent
/// configuration (code = mixed radix over `parents`, first parent fastest): `n_configs` rows of
/// `k` probabilities.
/// Errors: a `table` row, a row of the wrong length, an unknown state, a repeated or missing
/// configuration, probabilities that are not a distribution.
fn conditional_rows(
    file: &str,
    variables: &[BifVariable],
    name: &str,
    parents: &[usize],
    radices: &[usize],
    r: &RawCpt,
    (n_configs, k): (usize, usize),
) -> Result<Vec<f64>, ParamError> {
    let mut cpt = vec![f64::NAN; n_configs * k];
    if let Some((line, _)) = &r.table {
        return Err(err(
            file,
            *line,
            format!(
                "variable {name}: `table` for a node with parents is not supported: give one `(states) p, …;` row per parent configuration"
            ),
        ));
    }
    let mut seen = vec![false; n_configs];
    for (line, key, vals) in &r.rows {
        let label = key
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        if key.len() != parents.len() {
            return Err(err(
                file,
                *line,
                format!(
                    "variable {name}, parent configuration ({label}): {} states for {} parents",
                    key.len(),
                    parents.len()
                ),
            ));
        }
        let mut code = 0;
        let mut radix = 1;
        for (l, t) in key.iter().enumerate() {
            let q = parents[l];
            let s = variables[q].states.iter().position(|s| *s == t.text).ok_or_else(|| {
                err(file, t.line, format!("variable {name}, parent configuration ({label}): {} is not a state of {} ({})", t.text, variables[q].name, variables[q].states.join(", ")))
            })?;
            code += radix * s;
            radix *= radices[l];
        }
        if seen[code] {
            return Err(err(
                file,
                *line,
                format!("variable {name}, parent configuration ({label}): repeated CPT row"),
            ));
        }
        seen[code] = true;
        let row = probabilities(
            file,
            *line,
            &format!("variable {name}, parent configuration ({label})"),
            k,
            vals,
        )?;
        cpt[code * k..(code + 1) * k].copy_from_slice(&row);
    }
    if let Some(code) = seen.iter().position(|&s| !s) {
        let mut rest = code;
        let label: Vec<&str> = parents
            .iter()
            .map(|&q| {
                let kq = variables[q].states.len();
                let s = variables[q].states[rest % kq].as_str();
                rest /= kq;
                s
            })
            .collect();
        return Err(err(
            file,
            r.child.line,
            format!(
                "variable {name}, parent configuration ({}): missing CPT row",
                label.join(", ")
            ),
        ));
    }
    Ok(cpt)
}

/// Kahn's algorithm, smallest declared index first; a cycle is refused naming its variables.
pub(super) fn topological_order(
    file: &str,
    vars: &[BifVariable],
) -> Result<Vec<usize>, ParamError> {
    let p = vars.len();
    let mut indeg: Vec<usize> = vars.iter().map(|v| v.parents.len()).collect();
    let mut children = vec![Vec::new(); p];
    for (j, v) in vars.iter().enumerate() {
        for &q in &v.parents {
            children[q].push(j);
        }
    }
    let mut ready: std::collections::BTreeSet<usize> = (0..p).filter(|&j| indeg[j] == 0).collect();
    let mut order = Vec::with_capacity(p);
    while let Some(j) = ready.pop_first() {
        order.push(j);
        for &c in &children[j] {
            indeg[c] -= 1;
            if indeg[c] == 0 {
                ready.insert(c);
            }
        }
    }
    if order.len() < p {
        let left: Vec<&str> = (0..p)
            .filter(|&j| indeg[j] > 0)
            .map(|j| vars[j].name.as_str())
            .collect();
        let line = (0..p).find(|&j| indeg[j] > 0).map_or(1, |j| vars[j].line);
        return Err(err(
            file,
            line,
            format!(
                "the network is cyclic: no topological order for {}",
                left.join(", ")
            ),
        ));
    }
    Ok(order)
}
