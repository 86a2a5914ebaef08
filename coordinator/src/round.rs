//! One round of a convergence-driven run (`until:`), as the runner sees it: which chains run,
//! to which iteration, and from which stored end state. The rounds themselves (judging, growing,
//! recording) are [`crate::converge`]'s; the runner only reads a [`Round`].

use std::collections::HashMap;

use causeway_papers::RunSpec;
use causeway_proto::v1::ChainCheckpoint;
use causeway_results::rundir::{JobRecord, RunDir};
use causeway_results::rundir::{UntilRecord, stored_rows, trace_rows};
use prost::Message;

use crate::experiment::Plan;
use crate::store::JobStore;

/// One round of a convergence-driven run, as the runner sees it: per plan job, the run spec it
/// runs to in this round (`None`: a chain its group does not use yet).
#[derive(Debug, Clone)]
pub struct Round {
    specs: Vec<Option<RunSpec>>,
    job_ids: Vec<String>,
}

impl Round {
    /// The round of record `rec` over `plan`'s jobs: chain k of group (c, r) runs iff
    /// k < its `chains`, to its `iterations`, with the cell's `run.burn_in` and `run.thin`.
    pub fn new(plan: &Plan, rec: &UntilRecord) -> Round {
        let spec = |j: &JobRecord| {
            let g = rec.group(j.cell, j.replicate)?;
            let base = plan.manifest.cells[j.cell].run;
            (j.chain < g.chains).then_some(RunSpec {
                iterations: g.iterations,
                ..base
            })
        };
        Round {
            specs: plan.manifest.jobs.iter().map(spec).collect(),
            job_ids: plan
                .manifest
                .jobs
                .iter()
                .map(|j| j.job_id.clone())
                .collect(),
        }
    }

    /// Whether job `i` runs in this round's groups.
    pub fn active(&self, i: usize) -> bool {
        matches!(self.specs.get(i), Some(Some(_)))
    }

    /// Job `i`'s run spec as the worker reads it (`Job.run_json`).
    pub fn run_json(&self, i: usize) -> Option<String> {
        let s = (*self.specs.get(i)?)?;
        serde_json::to_string(&s).ok()
    }

    /// Whether job `i`'s stored trace is at this round's target: ⌊iterations / thin⌋ rows.
    pub fn stored_at_target(&self, rd: &RunDir, i: usize) -> bool {
        let Some(Some(s)) = self.specs.get(i) else {
            return true;
        };
        trace_rows(rd, &self.job_ids[i]).is_some_and(|n| n as u64 == s.iterations / s.thin.max(1))
    }

    /// The end state to keep of `checkpoint` (job `index`'s), without its rows: only the one
    /// saved after the round's last iteration.
    pub fn end_state(&self, index: usize, c: &ChainCheckpoint) -> Option<ChainCheckpoint> {
        let s = (*self.specs.get(index)?)?;
        (c.iteration == s.iterations).then(|| ChainCheckpoint {
            iterations: Vec::new(),
            trace: Vec::new(),
            stats: Vec::new(),
            elapsed_seconds: c.elapsed_seconds.last().copied().into_iter().collect(),
            ..c.clone()
        })
    }

    /// For every `pending` chain without a stored checkpoint that has an end state matching its
    /// stored files (a chain this round extends): the checkpoint to resume from, with the rows
    /// read back from its files. A chain without one runs from iteration 1 (the same chain, at
    /// more cost).
    pub fn end_states(
        &self,
        table: &JobStore,
        rd: &RunDir,
        pending: &[usize],
        checkpoints: &mut HashMap<usize, ChainCheckpoint>,
    ) -> anyhow::Result<()> {
        let want: Vec<usize> = pending
            .iter()
            .copied()
            .filter(|i| !checkpoints.contains_key(i))
            .collect();
        for (i, bytes) in table.ends(&want)? {
            // A damaged end state only costs time: the chain runs from iteration 1.
            let end = bytes.and_then(|(iteration, b)| {
                match ChainCheckpoint::decode(b.as_slice()).map_err(|e| e.to_string())? {
                    c if c.iteration == iteration => Ok(c),
                    c => Err(format!(
                        "it says iteration {} where its row says {iteration}",
                        c.iteration
                    )),
                }
            });
            let end = match end {
                Ok(end) => end,
                Err(why) => {
                    eprintln!(
                        "warning: the end state of {} is damaged ({why}); the chain runs from \
                         iteration 1",
                        self.job_ids[i]
                    );
                    continue;
                }
            };
            let Some(Some(spec)) = self.specs.get(i) else {
                continue;
            };
            let id = &self.job_ids[i];
            if end.job_id != *id || end.iteration > spec.iterations || rd.chain_defect(id).is_some()
            {
                continue;
            }
            match held_rows(rd, id, end, spec.thin.max(1)) {
                Ok(Some(c)) => {
                    checkpoints.insert(i, c);
                }
                Ok(None) => {}
                Err(e) => eprintln!("warning: {id}: {e:#}; the chain runs from iteration 1"),
            }
        }
        Ok(())
    }
}

/// `end` with the rows of job `id`'s stored files, if they are exactly the rows up to its
/// iteration (⌊iteration / thin⌋ of them); `None` otherwise.
fn held_rows(
    rd: &RunDir,
    id: &str,
    mut end: ChainCheckpoint,
    thin: u64,
) -> anyhow::Result<Option<ChainCheckpoint>> {
    let rows = stored_rows(rd, id)?;
    let n = end.iteration / thin;
    if rows.iterations.len() as u64 != n || rows.iterations.last().copied().unwrap_or(0) != n * thin
    {
        return Ok(None);
    }
    end.iterations = rows.iterations;
    end.trace = rows.trace;
    end.stats = rows.stats;
    end.elapsed_seconds = rows.elapsed_seconds;
    Ok(Some(end))
}
