//! JUnit XML for `causeway check --junit FILE`: one test case per table (or per other check,
//! such as a run's completeness), failing with its cells.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A JUnit XML test suite: one test case per name, failing with its messages if it has any, and
/// `summary` as the suite's output.
pub fn junit_xml(per: &BTreeMap<&str, Vec<String>>, summary: &str) -> String {
    let failures = per.values().filter(|v| !v.is_empty()).count();
    let mut s = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"causeway check\" tests=\"{}\" failures=\"{failures}\">\n",
        per.len()
    );
    for (table, fails) in per {
        let _ = write!(
            s,
            "  <testcase classname=\"causeway.check\" name=\"{}\"",
            xml(table)
        );
        if fails.is_empty() {
            s.push_str("/>\n");
        } else {
            let _ = writeln!(
                s,
                ">\n    <failure message=\"{} failing cells\">{}</failure>\n  </testcase>",
                fails.len(),
                xml(&fails.join("\n"))
            );
        }
    }
    let _ = writeln!(s, "  <system-out>{}</system-out>", xml(summary));
    s.push_str("</testsuite>\n");
    s
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
