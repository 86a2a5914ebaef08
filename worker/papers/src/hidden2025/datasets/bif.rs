//! BIF networks (`dataset: {kind: bif_sample, path, rows, columns, rename}`): a reader for the
//! Bayesian Interchange Format of the BN repository files (`data/bnrepository/*.bif`) and
//! ancestral sampling with the run's seeded RNG (supplement F of
//! `002_d97ecc788b964f97.txt` samples ALARM).
//!
//! Accepted grammar (whitespace free, `//` and `/* */` comments skipped):
//! ```text
//! network NAME { (property …;)* }
//! variable NAME { type discrete [ K ] { S1, …, SK }; (property …;)* }
//! probability ( X ) { table p1, …, pK; }
//! probability ( X | P1, …, Pm ) { (s1, …, sm) p1, …, pK; … }   one row per parent configuration
//! ```
//! Names and states are any run of characters other than whitespace and `{}()[],;|` (so `/`, `-`,
//! `.`, `<`, `>=`, `+` are allowed). `table` is accepted for a root only (its order for nodes with
//! parents differs between tools, so rows are required there); `default` rows are refused.
//!
//! Refused, naming file, line, variable and parent configuration: a syntax error; a declared
//! count K that is not the number of states, or a repeated state; a CPT row whose length is not
//! K; a probability outside [0, 1] or a row not summing to 1 within [`SUM_TOLERANCE`]; an
//! undeclared variable, parent or state; a missing, repeated or extra CPT row; a missing or
//! repeated CPT; a repeated parent; a cyclic network.
//!
//! CPTs are stored per parent configuration in [`super::DiscreteData::config_codes`]' coding over
//! the parents in the order the `probability` block lists them (first parent fastest).

use std::collections::HashMap;
use std::path::Path;

use rand::RngExt;

mod cpt;

use cpt::{fill_cpt, topological_order};

use super::DiscreteData;
use crate::params::ParamError;
use crate::seed::ChainRng;

/// Largest allowed |Σ_x p(x | x_Pa) − 1| of a CPT row.
pub const SUM_TOLERANCE: f64 = 1e-6;

/// One node of a BIF network.
#[derive(Debug, Clone, PartialEq)]
pub struct BifVariable {
    /// Name.
    pub name: String,
    /// The k declared states, in declared order (code c ↦ `states[c]`).
    pub states: Vec<String>,
    /// Parent indices, in the order of the `probability ( X | … )` header.
    pub parents: Vec<usize>,
    /// `n_configs × k` row-major: P(X = x | configuration), configuration code Σ_l x_l Π_{l'<l} k_l'.
    pub cpt: Vec<f64>,
    /// Line of the `variable` block.
    pub line: usize,
}

/// A parsed BIF network.
#[derive(Debug, Clone, PartialEq)]
pub struct BifNetwork {
    /// The file as named in messages.
    pub file: String,
    /// Variables in declaration order.
    pub variables: Vec<BifVariable>,
    /// A topological order (parents before children; ties in declaration order).
    pub order: Vec<usize>,
}

#[derive(Debug, Clone, PartialEq)]
struct Tok {
    text: String,
    line: usize,
}

fn is_punct(c: char) -> bool {
    matches!(c, '{' | '}' | '(' | ')' | '[' | ']' | ',' | ';' | '|')
}

fn err(file: &str, line: usize, msg: impl std::fmt::Display) -> ParamError {
    ParamError::new("dataset.path", format!("{file}, line {line}: {msg}"))
}

fn tokenize(file: &str, text: &str) -> Result<Vec<Tok>, ParamError> {
    let mut toks = Vec::new();
    let mut line = 1;
    let mut it = text.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\n' {
            line += 1;
        } else if c.is_whitespace() {
        } else if c == '/' && it.peek() == Some(&'/') {
            for d in it.by_ref() {
                if d == '\n' {
                    line += 1;
                    break;
                }
            }
        } else if c == '/' && it.peek() == Some(&'*') {
            let start = line;
            it.next();
            let mut prev = ' ';
            let mut closed = false;
            for d in it.by_ref() {
                if d == '\n' {
                    line += 1;
                }
                if prev == '*' && d == '/' {
                    closed = true;
                    break;
                }
                prev = d;
            }
            if !closed {
                return Err(err(file, start, "syntax error: unclosed /* comment"));
            }
        } else if is_punct(c) {
            toks.push(Tok {
                text: c.to_string(),
                line,
            });
        } else {
            let mut s = c.to_string();
            while let Some(&d) = it.peek() {
                if d.is_whitespace() || is_punct(d) {
                    break;
                }
                s.push(d);
                it.next();
            }
            toks.push(Tok { text: s, line });
        }
    }
    Ok(toks)
}

struct Parser<'a> {
    file: &'a str,
    toks: Vec<Tok>,
    pos: usize,
}

impl Parser<'_> {
    fn line(&self) -> usize {
        self.toks
            .get(self.pos)
            .or(self.toks.last())
            .map_or(1, |t| t.line)
    }
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.pos).map(|t| t.text.as_str())
    }
    fn next(&mut self, what: &str) -> Result<Tok, ParamError> {
        let t = self.toks.get(self.pos).cloned().ok_or_else(|| {
            err(
                self.file,
                self.line(),
                format!("syntax error: end of file, expected {what}"),
            )
        })?;
        self.pos += 1;
        Ok(t)
    }
    fn expect_token(&mut self, s: &str, ctx: &str) -> Result<usize, ParamError> {
        let t = self.next(&format!("`{s}`"))?;
        if t.text != s {
            return Err(err(
                self.file,
                t.line,
                format!("syntax error{ctx}: expected `{s}`, found `{}`", t.text),
            ));
        }
        Ok(t.line)
    }
    fn word(&mut self, what: &str, ctx: &str) -> Result<Tok, ParamError> {
        let t = self.next(what)?;
        if t.text.chars().count() == 1 && t.text.chars().all(is_punct) {
            return Err(err(
                self.file,
                t.line,
                format!("syntax error{ctx}: expected {what}, found `{}`", t.text),
            ));
        }
        Ok(t)
    }
    /// A comma-separated list of words up to `close` (consumed).
    fn list(&mut self, close: &str, what: &str, ctx: &str) -> Result<Vec<Tok>, ParamError> {
        let mut out = vec![self.word(what, ctx)?];
        loop {
            let t = self.next(&format!("`,` or `{close}`"))?;
            if t.text == close {
                return Ok(out);
            }
            if t.text != "," {
                return Err(err(
                    self.file,
                    t.line,
                    format!(
                        "syntax error{ctx}: expected `,` or `{close}`, found `{}`",
                        t.text
                    ),
                ));
            }
            out.push(self.word(what, ctx)?);
        }
    }
    /// Skip `property … ;`.
    fn skip_property(&mut self) -> Result<(), ParamError> {
        loop {
            let t = self.next("`;` ending the property")?;
            if t.text == ";" {
                return Ok(());
            }
        }
    }
}

struct RawCpt {
    child: Tok,
    parents: Vec<Tok>,
    table: Option<(usize, Vec<Tok>)>,
    rows: Vec<(usize, Vec<Tok>, Vec<Tok>)>,
}

impl BifNetwork {
    /// Read and check the BIF file at `path` (`file` is the name used in messages).
    pub fn read(path: &Path, file: &str) -> Result<Self, ParamError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ParamError::new("dataset.path", format!("{file}: cannot read: {e}")))?;
        Self::parse(file, &text)
    }

    /// Parse and check BIF text (see the module docs for what is refused).
    pub fn parse(file: &str, text: &str) -> Result<Self, ParamError> {
        let mut p = Parser {
            file,
            toks: tokenize(file, text)?,
            pos: 0,
        };
        let mut variables: Vec<BifVariable> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut raw: Vec<RawCpt> = Vec::new();
        while let Some(kw) = p.peek().map(str::to_string) {
            let line = p.line();
            p.pos += 1;
            match kw.as_str() {
                "network" => parse_network(&mut p)?,
                "variable" => {
                    let v = parse_variable(&mut p, &index, line)?;
                    index.insert(v.name.clone(), variables.len());
                    variables.push(v);
                }
                "probability" => raw.push(parse_probability(&mut p)?),
                other => {
                    return Err(err(
                        file,
                        line,
                        format!(
                            "syntax error: expected `network`, `variable` or `probability`, found `{other}`"
                        ),
                    ));
                }
            }
        }
        let mut has_cpt = vec![false; variables.len()];
        for r in raw {
            fill_cpt(file, &mut variables, &index, &mut has_cpt, r)?;
        }
        if let Some(j) = has_cpt.iter().position(|&h| !h) {
            return Err(err(
                file,
                variables[j].line,
                format!(
                    "variable {} has no probability block (missing CPT)",
                    variables[j].name
                ),
            ));
        }
        if variables.is_empty() {
            return Err(err(file, 1, "the network declares no variable"));
        }
        let order = topological_order(file, &variables)?;
        Ok(BifNetwork {
            file: file.to_string(),
            variables,
            order,
        })
    }

    /// The index of the variable called `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.variables.iter().position(|v| v.name == name)
    }

    /// k_j of variable `j`.
    pub fn k(&self, j: usize) -> usize {
        self.variables[j].states.len()
    }

    /// K_Pa of variable `j`.
    pub fn n_configs(&self, j: usize) -> usize {
        self.variables[j]
            .parents
            .iter()
            .map(|&q| self.k(q))
            .product()
    }

    /// P(X_j = · | configuration `code`), k_j values.
    pub fn row(&self, j: usize, code: usize) -> &[f64] {
        let k = self.k(j);
        &self.variables[j].cpt[code * k..(code + 1) * k]
    }

    /// The label `P1=s1;P2=s2` of configuration `code` of `j`'s parents (empty for a root).
    pub fn config_label(&self, j: usize, code: usize) -> String {
        let mut rest = code;
        let mut parts = Vec::new();
        for &q in &self.variables[j].parents {
            let k = self.k(q);
            parts.push(format!(
                "{}={}",
                self.variables[q].name,
                self.variables[q].states[rest % k]
            ));
            rest /= k;
        }
        parts.join(";")
    }

    /// Draw `rows` rows by ancestral sampling (each node given its sampled parents, in
    /// [`BifNetwork::order`], one uniform per node and row, inverse CDF over the declared states).
    /// Every variable, in declaration order, with its declared states. Deterministic given `rng`.
    pub fn sample(&self, rows: usize, rng: &mut ChainRng) -> DiscreteData {
        let p = self.variables.len();
        let cum: Vec<Vec<f64>> = self
            .variables
            .iter()
            .map(|v| {
                let k = v.states.len();
                let mut c = Vec::with_capacity(v.cpt.len());
                for row in v.cpt.chunks(k) {
                    let mut acc = 0.0;
                    for &x in row {
                        acc += x;
                        c.push(acc);
                    }
                }
                c
            })
            .collect();
        let mut columns: Vec<Vec<u16>> = (0..p).map(|_| Vec::with_capacity(rows)).collect();
        let mut x = vec![0usize; p];
        for _ in 0..rows {
            for &j in &self.order {
                let v = &self.variables[j];
                let k = v.states.len();
                let mut code = 0usize;
                let mut radix = 1usize;
                for &q in &v.parents {
                    code += radix * x[q];
                    radix *= self.k(q);
                }
                let u: f64 = rng.random::<f64>();
                let row = &cum[j][code * k..(code + 1) * k];
                let total = row[k - 1];
                // u·total guards against rows summing to 1 − 1e-6; a zero-probability state is
                // never drawn because its cumulative value equals its predecessor's.
                let target = u * total;
                let mut s = row.iter().position(|&c| target < c).unwrap_or(k - 1);
                while s > 0 && v.cpt[code * k + s] == 0.0 {
                    s -= 1;
                }
                x[j] = s;
                columns[j].push(s as u16);
            }
        }
        DiscreteData {
            names: self.variables.iter().map(|v| v.name.clone()).collect(),
            levels: self.variables.iter().map(|v| v.states.clone()).collect(),
            columns,
        }
    }
}

/// A `network NAME { property ...; }` block (its name and properties are not used).
fn parse_network(p: &mut Parser<'_>) -> Result<(), ParamError> {
    let file = p.file;
    p.word("a network name", " in `network`")?;
    p.expect_token("{", " in `network`")?;
    while p.peek() != Some("}") {
        let t = p.next("`}`")?;
        if t.text != "property" {
            return Err(err(
                file,
                t.line,
                format!(
                    "syntax error in `network`: expected `property` or `}}`, found `{}`",
                    t.text
                ),
            ));
        }
        p.skip_property()?;
    }
    p.expect_token("}", " in `network`")?;
    Ok(())
}

/// A `variable NAME { type discrete [ k ] { s1, ..., sk }; property ...; }` block, started on
/// line `line`. Errors: a name declared twice (in `index`), no `type discrete` line.
fn parse_variable(
    p: &mut Parser<'_>,
    index: &HashMap<String, usize>,
    line: usize,
) -> Result<BifVariable, ParamError> {
    let file = p.file;
    let name = p.word("a variable name", " in `variable`")?;
    let ctx = format!(" in variable {}", name.text);
    if index.contains_key(&name.text) {
        return Err(err(
            file,
            name.line,
            format!("variable {} is declared twice", name.text),
        ));
    }
    p.expect_token("{", &ctx)?;
    let mut states = None;
    while p.peek() != Some("}") {
        let t = p.next("`type` or `}`")?;
        match t.text.as_str() {
            "property" => p.skip_property()?,
            "type" => states = Some(parse_states(p, &name, &ctx)?),
            other => {
                return Err(err(
                    file,
                    t.line,
                    format!(
                        "syntax error{ctx}: expected `type`, `property` or `}}`, found `{other}`"
                    ),
                ));
            }
        }
    }
    p.expect_token("}", &ctx)?;
    let states = states.ok_or_else(|| {
        err(
            file,
            name.line,
            format!("variable {} has no `type discrete` line", name.text),
        )
    })?;
    Ok(BifVariable {
        name: name.text,
        states,
        parents: Vec::new(),
        cpt: Vec::new(),
        line,
    })
}

/// The states of `type discrete [ k ] { s1, ..., sk };` (after `type`). Errors: another type,
/// a count that is not a number, disagrees with the list or is below 2, a repeated state.
fn parse_states(p: &mut Parser<'_>, name: &Tok, ctx: &str) -> Result<Vec<String>, ParamError> {
    let file = p.file;
    let d = p.word("`discrete`", ctx)?;
    if d.text != "discrete" {
        return Err(err(
            file,
            d.line,
            format!(
                "variable {}: type {} is not supported (only discrete)",
                name.text, d.text
            ),
        ));
    }
    p.expect_token("[", ctx)?;
    let k = p.word("the number of states", ctx)?;
    let kv: usize = k.text.parse().map_err(|_| {
        err(
            file,
            k.line,
            format!("syntax error{ctx}: {:?} is not a number of states", k.text),
        )
    })?;
    p.expect_token("]", ctx)?;
    p.expect_token("{", ctx)?;
    let list = p.list("}", "a state name", ctx)?;
    p.expect_token(";", ctx)?;
    if list.len() != kv {
        return Err(err(
            file,
            k.line,
            format!(
                "variable {} declares [ {kv} ] states but lists {}",
                name.text,
                list.len()
            ),
        ));
    }
    if !(2..=super::MAX_LEVELS).contains(&kv) {
        return Err(err(
            file,
            k.line,
            format!(
                "variable {} has {kv} states: at least 2 are needed",
                name.text
            ),
        ));
    }
    let mut s: Vec<String> = Vec::new();
    for st in list {
        if s.contains(&st.text) {
            return Err(err(
                file,
                st.line,
                format!("variable {}: state {} is repeated", name.text, st.text),
            ));
        }
        s.push(st.text);
    }
    Ok(s)
}

fn parse_probability(p: &mut Parser) -> Result<RawCpt, ParamError> {
    p.expect_token("(", " in `probability`")?;
    let child = p.word("a variable name", " in `probability`")?;
    let ctx = format!(" in the CPT of {}", child.text);
    let mut parents = Vec::new();
    let t = p.next("`|` or `)`")?;
    match t.text.as_str() {
        ")" => {}
        "|" => parents = p.list(")", "a parent name", &ctx)?,
        other => {
            return Err(err(
                p.file,
                t.line,
                format!("syntax error{ctx}: expected `|` or `)`, found `{other}`"),
            ));
        }
    }
    p.expect_token("{", &ctx)?;
    let mut table = None;
    let mut rows = Vec::new();
    loop {
        let t = p.next("a CPT row or `}`")?;
        match t.text.as_str() {
            "}" => break,
            "property" => p.skip_property()?,
            "table" => {
                let vals = p.list(";", "a probability", &ctx)?;
                if table.is_some() {
                    return Err(err(
                        p.file,
                        t.line,
                        format!("variable {}: repeated `table` line", child.text),
                    ));
                }
                table = Some((t.line, vals));
            }
            "(" => {
                let key = p.list(")", "a parent state", &ctx)?;
                let vals = p.list(";", "a probability", &ctx)?;
                rows.push((t.line, key, vals));
            }
            other => {
                return Err(err(
                    p.file,
                    t.line,
                    format!("syntax error{ctx}: expected `(`, `table` or `}}`, found `{other}`"),
                ));
            }
        }
    }
    Ok(RawCpt {
        child,
        parents,
        table,
        rows,
    })
}
