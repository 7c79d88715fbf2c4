//! A hand-written SVG chart of a simulation: the replica count as a step line on the left
//! axis, and each metric as a percentage of its target on the right axis (100 % = on target).

use std::fmt::Write as _;

use super::render::Header;
use crate::commands::common::{ratio_to_target, target_of, target_text};
use hpa_core::evaluator::simulation::Simulation;
use hpa_core::evaluator::time::format_ms;

const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 460.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 72.0;
const TOP: f64 = 64.0;
const BOTTOM: f64 = 48.0;
/// The highest percentage of target the right axis shows.
const MAX_PCT: f64 = 500.0;
const REPLICAS_COLOR: &str = "#1f77b4";
const METRIC_COLORS: [&str; 6] = ["#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"];

/// Escapes text for SVG.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A round number ≥ `v` (1, 2, 2.5, 5 × 10^k).
fn nice_ceil(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let mag = 10f64.powf(v.log10().floor());
    for m in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if m * mag >= v {
            return m * mag;
        }
    }
    10.0 * mag
}

/// A tick step (ms) giving at most about ten ticks over `span_ms`.
fn time_step(span_ms: i64) -> i64 {
    const STEPS: [i64; 14] = [
        1_000, 5_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000,
        10_800_000, 21_600_000,
    ];
    STEPS.iter().copied().find(|s| span_ms / s <= 10).unwrap_or(43_200_000)
}

/// Renders the chart.
pub fn render(h: &Header, sim: &Simulation) -> String {
    let pw = WIDTH - LEFT - RIGHT;
    let ph = HEIGHT - TOP - BOTTOM;
    let end_ms = sim.steps.last().map_or(h.sync_period_ms, |s| s.at_ms + h.sync_period_ms).max(1);
    let x = |ms: i64| LEFT + pw * (ms as f64 / end_ms as f64);
    let top_replicas = sim
        .steps
        .iter()
        .map(|s| s.replicas.max(s.desired))
        .chain([h.max])
        .max()
        .map_or(1.0, |v| nice_ceil(f64::from(v.max(1))));
    let y = |r: f64| TOP + ph * (1.0 - r / top_replicas);

    // Each metric's ratio to its target, in percent.
    let series: Vec<Vec<Option<f64>>> = (0..sim.metrics.len())
        .map(|i| {
            let target = sim.metrics.get(i).and_then(target_of);
            sim.steps
                .iter()
                .map(|s| {
                    let c = sim.observations(s).get(i).and_then(|m| m.current.as_ref())?;
                    ratio_to_target(target?, c).map(|r| r * 100.0)
                })
                .collect()
        })
        .collect();
    // The right axis stops at 500 % at most: a short spike far above target would flatten
    // everything else. Clipped peaks are labelled with their value.
    let top_pct = nice_ceil(series.iter().flatten().flatten().copied().fold(200.0, f64::max).min(MAX_PCT));
    let yr = |p: f64| TOP + ph * (1.0 - p.min(top_pct) / top_pct);

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="22" font-size="15" font-weight="bold">{}</text>"#,
        esc(&format!("{} → {}: replicas and metrics over time", h.hpa, h.target))
    );

    // Grid and left axis (replicas).
    for i in 0..=5 {
        let v = top_replicas * f64::from(i) / 5.0;
        let yy = y(v);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#e5e5e5"/><text x="{:.1}" y="{:.1}" text-anchor="end" fill="{REPLICAS_COLOR}">{}</text>"##,
            LEFT + pw,
            LEFT - 6.0,
            yy + 4.0,
            format_number(v)
        );
        let p = top_pct * f64::from(i) / 5.0;
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" fill="#555">{}%</text>"##,
            LEFT + pw + 6.0,
            yr(p) + 4.0,
            format_number(p)
        );
    }
    let step = time_step(end_ms);
    let mut t = 0;
    while t <= end_ms {
        let xx = x(t);
        let _ = writeln!(
            s,
            r##"<line x1="{xx:.1}" y1="{TOP}" x2="{xx:.1}" y2="{:.1}" stroke="#f0f0f0"/><text x="{xx:.1}" y="{:.1}" text-anchor="middle" fill="#555">{}</text>"##,
            TOP + ph,
            TOP + ph + 18.0,
            format_ms(t)
        );
        t += step;
    }
    let _ = writeln!(s, r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>"##);
    let _ = writeln!(
        s,
        r##"<text x="16" y="{:.1}" transform="rotate(-90 16 {:.1})" text-anchor="middle" fill="{REPLICAS_COLOR}">replicas</text>"##,
        TOP + ph / 2.0,
        TOP + ph / 2.0
    );
    let _ = writeln!(
        s,
        r##"<text x="{:.1}" y="{:.1}" transform="rotate(90 {:.1} {:.1})" text-anchor="middle" fill="#555">metric, % of target</text>"##,
        WIDTH - 14.0,
        TOP + ph / 2.0,
        WIDTH - 14.0,
        TOP + ph / 2.0
    );
    let _ = writeln!(
        s,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#555">time</text>"##,
        LEFT + pw / 2.0,
        HEIGHT - 8.0
    );

    // min/max replicas and the target.
    for (v, label) in [(h.min, "minReplicas"), (h.max, "maxReplicas")] {
        let yy = y(f64::from(v));
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="{REPLICAS_COLOR}" stroke-opacity="0.5" stroke-dasharray="2 3"/><text x="{:.1}" y="{:.1}" text-anchor="end" fill="{REPLICAS_COLOR}" fill-opacity="0.8" font-size="10">{label} {v}</text>"##,
            LEFT + pw,
            LEFT + pw - 4.0,
            yy - 3.0
        );
    }
    if !sim.metrics.is_empty() {
        let yy = yr(100.0);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#555" stroke-dasharray="6 4"/><text x="{:.1}" y="{:.1}" fill="#555" font-size="10">target (100%)</text>"##,
            LEFT + pw,
            LEFT + 4.0,
            yy - 3.0
        );
    }

    // Metrics: polylines with gaps where a metric failed.
    for (i, points) in series.iter().enumerate() {
        let color = METRIC_COLORS[i % METRIC_COLORS.len()];
        let mut path = String::new();
        let mut pen_down = false;
        for (st, p) in sim.steps.iter().zip(points) {
            match p {
                Some(p) => {
                    let _ = write!(path, "{}{:.1},{:.1} ", if pen_down { "L" } else { "M" }, x(st.at_ms), yr(*p));
                    pen_down = true;
                }
                None => pen_down = false,
            }
        }
        if !path.is_empty() {
            let _ = writeln!(
                s,
                r#"<path d="{}" fill="none" stroke="{color}" stroke-width="1.5" stroke-opacity="0.85"/>"#,
                path.trim_end()
            );
        }
        let peak = sim
            .steps
            .iter()
            .zip(points)
            .filter_map(|(st, p)| p.map(|p| (st.at_ms, p)))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((at, p)) = peak
            && p > top_pct
        {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" fill="{color}" font-size="10">peak {}%</text>"#,
                x(at) + 4.0,
                TOP + 12.0 + 12.0 * i as f64,
                format_number(p.round())
            );
        }
    }

    // Replicas: a step line (the count after each sync holds until the next one).
    if let Some(first) = sim.steps.first() {
        let mut d = format!("M{:.1},{:.1}", x(0), y(f64::from(first.replicas)));
        let mut prev = first.replicas;
        for st in &sim.steps {
            let xx = x(st.at_ms);
            let _ = write!(d, " L{xx:.1},{:.1} L{xx:.1},{:.1}", y(f64::from(prev)), y(f64::from(st.desired)));
            prev = st.desired;
        }
        let _ = write!(d, " L{:.1},{:.1}", x(end_ms), y(f64::from(prev)));
        let _ = writeln!(s, r#"<path d="{d}" fill="none" stroke="{REPLICAS_COLOR}" stroke-width="2.5"/>"#);
    }

    // Legend.
    let mut lx = LEFT;
    let ly = 44.0;
    let mut legend = |label: &str, color: &str, dashed: bool, s: &mut String| {
        let dash = if dashed { r#" stroke-dasharray="6 4""# } else { "" };
        let _ = writeln!(
            s,
            r#"<line x1="{lx:.1}" y1="{ly}" x2="{:.1}" y2="{ly}" stroke="{color}" stroke-width="2.5"{dash}/><text x="{:.1}" y="{:.1}">{}</text>"#,
            lx + 22.0,
            lx + 28.0,
            ly + 4.0,
            esc(label)
        );
        lx += 40.0 + label.chars().count() as f64 * 6.6;
    };
    legend("replicas", REPLICAS_COLOR, false, &mut s);
    for (i, spec) in sim.metrics.iter().enumerate() {
        let key = sim.metric_keys.get(i).cloned().flatten().unwrap_or_else(|| spec.type_.as_str().into());
        let target = target_of(spec).map(target_text).unwrap_or_default();
        legend(&format!("{key} (target {target})"), METRIC_COLORS[i % METRIC_COLORS.len()], false, &mut s);
    }
    s.push_str("</svg>\n");
    s
}

/// `5`, `2.5`, `1250`.
fn format_number(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 { format!("{}", v.round() as i64) } else { format!("{v:.1}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_numbers() {
        assert_eq!(nice_ceil(10.0), 10.0);
        assert_eq!(nice_ceil(11.0), 20.0);
        assert_eq!(nice_ceil(12875.0), 20000.0);
        assert_eq!(nice_ceil(230.0), 250.0);
        assert_eq!(time_step(300_000), 30_000);
        assert_eq!(time_step(86_400_000), 10_800_000);
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
