//! What the HPA controller does differently from one Kubernetes release to the next, decided
//! once per controller configuration ([`ControllerRelease::of`]) rather than per sync or per pod.
//!
//! Each field is one row of the project's `spec/versions.md` §7, named after the upstream change
//! that introduced it. A profile is the release as it shipped (x.y.0): a fix merged only on the
//! development branch belongs to 1.38, the preview.
//!
//! Overflow is modelled as on amd64, the architecture nearly every cluster runs: before 1.38, Go
//! converts an out-of-range (or NaN) float64 to int32 or int64 with the CPU's truncating
//! conversion (`CVTTSD2SL` / `CVTTSD2SQ`), which yields the "integer indefinite" value, the
//! type's minimum ([`go_amd64_int32`], [`go_amd64_int64`]). arm64, ppc64le and s390x saturate
//! instead; 1.38's `ceilToInt32` (#141397) saturates on every architecture.

use super::replicas::PodPhase;
use crate::api::Quantity;
use crate::features::KubernetesVersion;

/// The release-dependent parts of the HPA controller's arithmetic and status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ControllerRelease {
    /// The release.
    pub version: KubernetesVersion,
    /// `calculatePodLevelRequests` adds `spec.overhead` (`PodRequests(pod, {})`) in 1.34 to 1.37;
    /// 1.38 excludes it (#142154).
    pub pod_overhead: bool,
    /// A ContainerResource metric naming a container the pod lacks is an error
    /// (`container <c> not found in Pod <p>`) from 1.35 (#133415); before, its request is 0.
    pub missing_container_error: bool,
    /// `GetExternalPerPodMetricReplicas` saturates a sum that overflows at `MaxInt64`, and caps
    /// the replica count at `MaxInt32` and the per-pod usage of a saturated sum at `MaxInt64`,
    /// from 1.34 (#127050: approved 2025-05-09, after 1.33.0 shipped on 2025-04-23, so first in
    /// 1.34, as the #141397 author says).
    pub external_per_pod_cap: bool,
    /// `getUsageRatioReplicaCount` caps the replica count at `MaxInt32` from 1.35 (#126979).
    pub usage_ratio_cap: bool,
    /// `GetExternalMetricReplicas` caps the sum of the series at `MaxInt64` from 1.35 (#133888);
    /// before, it wraps.
    pub external_sum_cap: bool,
    /// Every `int32(math.Ceil(x))` saturates (`ceilToInt32`, #141397), 1.38.
    pub saturating_ceil: bool,
    /// `Quantity.MilliValue()` of a target past int64 saturates (apimachinery #141305), 1.38;
    /// before, it wraps or gives 0 ([`Self::milli_value`]).
    pub saturating_milli_value: bool,
    /// `GetResourceUtilizationRatio` sums the samples and requests and takes the percentage
    /// exactly (`math/big`), saturating only its int32 narrowing, 1.38 (#142192, v1.38.0-alpha.2);
    /// before, every step wraps ([`ReplicaCalculator`]'s utilization ratio).
    ///
    /// [`ReplicaCalculator`]: super::replicas::ReplicaCalculator
    pub exact_utilization: bool,
    /// `Quantity.AsApproximateFloat64` of a zero with a large scale (`0e400`) is 0 in 1.38
    /// (#141937); before, `0 × Pow10(scale)` is `0 × +Inf`, NaN ([`Self::approximate_f64`]).
    pub zero_float_is_zero: bool,
    /// The per-pod usage of an Object or External AverageValue target goes through
    /// `getPerPodUsage` (0 at zero replicas, `MaxInt64` for a saturated sum), 1.38 (#140958).
    pub per_pod_usage_guard: bool,
    /// The pod phases `groupPods` ignores, by `PodPhase as usize` ([`Self::ignores_phase`]):
    /// Failed, and Succeeded in 1.38 (`IsPodTerminal`, #141302). A table, so that the per-pod
    /// test is one lookup.
    ignored_phases: [bool; 5],
    /// `status.currentMetrics` renders memory `averageValue` in BinarySI (`buildQuantity`,
    /// `200Mi`) from 1.34 (#132351); 1.33 renders every resource in DecimalSI (`209715200`).
    pub memory_binary_si: bool,
    /// `spec.replicas == 0` follows the `ScaledToZero` condition (#135118) from 1.36; before,
    /// only `minReplicas != 0` disables scaling, and with `minReplicas: 0` the metrics are
    /// evaluated and the target scales up from zero with no condition.
    pub scaled_to_zero_condition: bool,
    /// A conflicting scale update is retried with a fresh read of the scale (`RetryOnConflict`,
    /// #132007) from 1.34; 1.33 makes one attempt (`FailedUpdateScale`, `FailedRescale`).
    pub retry_scale_update_on_conflict: bool,
    /// The Object metric fetch error reads `unable to get metric <m> on <Kind> <ns>/<name>: <err>`
    /// from 1.37 (#139029); before, Go's misordered arguments gave
    /// `unable to get metric <m>: <Kind> on <ns> <name>/<err>`.
    pub object_error_in_order: bool,
    /// A newly created HPA is synced at once from 1.37 (#138294): the informer's `AddFunc`,
    /// `enqueueHPA`, puts its key on the work queue with `queue.Add`. Before, `enqueueHPA` calls
    /// `queue.AddRateLimited`, and the queue's rate limiter (`NewDefaultHPARateLimiter`, set up by
    /// `NewHorizontalController`) is a `FixedItemIntervalRateLimiter` of the sync period: the
    /// first sync comes one sync period after creation. Either way `processNextWorkItem` puts
    /// the key back with `AddRateLimited` after each sync, so the later syncs are one period
    /// apart ([`HPAControllerConfiguration::first_sync_after_creation`]).
    ///
    /// [`HPAControllerConfiguration::first_sync_after_creation`]: super::HPAControllerConfiguration::first_sync_after_creation
    pub first_sync_at_creation: bool,
    /// An update that changes the spec is synced at once from 1.37 when `HPAGeneration` is on
    /// (#138294: `updateHPA` compares `metadata.generation`, bumped by kube-apiserver on a spec
    /// change, and calls `queue.Add`; other updates, such as the controller's own status
    /// writes, stay rate limited). Before, and with the gate off, `updateHPA` is `enqueueHPA`
    /// with `AddRateLimited`: the delaying queue keeps the earlier ready time of a key already
    /// waiting, so a spec change waits for the next periodic sync (at most one sync period)
    /// ([`HPAControllerConfiguration::syncs_spec_change_at_once`]).
    ///
    /// [`HPAControllerConfiguration::syncs_spec_change_at_once`]: super::HPAControllerConfiguration::syncs_spec_change_at_once
    pub spec_change_at_once: bool,
}

impl ControllerRelease {
    /// The controller of `version`.
    pub fn of(version: KubernetesVersion) -> ControllerRelease {
        let m = version.minor();
        ControllerRelease {
            version,
            pod_overhead: (34..=37).contains(&m),
            missing_container_error: m >= 35,
            external_per_pod_cap: m >= 34,
            usage_ratio_cap: m >= 35,
            external_sum_cap: m >= 35,
            saturating_ceil: m >= 38,
            saturating_milli_value: m >= 38,
            exact_utilization: m >= 38,
            zero_float_is_zero: m >= 38,
            per_pod_usage_guard: m >= 38,
            ignored_phases: {
                let mut t = [false; 5];
                for (phase, ignored) in [(PodPhase::Failed, true), (PodPhase::Succeeded, m >= 38)] {
                    if let Some(slot) = t.get_mut(phase as usize) {
                        *slot = ignored;
                    }
                }
                t
            },
            memory_binary_si: m >= 34,
            retry_scale_update_on_conflict: m >= 34,
            scaled_to_zero_condition: m >= 36,
            object_error_in_order: m >= 37,
            first_sync_at_creation: m >= 37,
            spec_change_at_once: m >= 37,
        }
    }

    /// `int32(math.Ceil(x))` as this release computes it: 1.38's `ceilToInt32` saturates at both
    /// ends (NaN, which needs a zero target refused by validation, maps to 0, the saturating
    /// semantics Go plans for every float-to-int conversion, golang/go#76264); before, amd64
    /// gives `MinInt32` for NaN or a value out of range ([`go_amd64_int32`]).
    pub fn ceil_to_i32(self, x: f64) -> i32 {
        if self.saturating_ceil {
            // Rust's float-to-int `as` saturates at the bounds and maps NaN to 0.
            x.ceil() as i32
        } else {
            go_amd64_int32(x.ceil())
        }
    }

    /// `q.MilliValue()` as this release's apimachinery computes it: saturating from 1.38
    /// ([`Quantity::milli_value`]), wrapping or 0 before ([`Quantity::wrapping_milli_value`]).
    pub fn milli_value(self, q: &Quantity) -> i64 {
        if self.saturating_milli_value { q.milli_value() } else { q.wrapping_milli_value() }
    }

    /// `q.AsApproximateFloat64()` as this release's apimachinery computes it (the per-HPA
    /// tolerance, `tolerancesForHpa`): 1.38 answers 0 for any zero (#141937); before, a zero
    /// written with a large exponent (`0e400`) is NaN, as [`Quantity::as_approximate_f64`] is.
    pub fn approximate_f64(self, q: &Quantity) -> f64 {
        if self.zero_float_is_zero && q.is_zero() { 0.0 } else { q.as_approximate_f64() }
    }

    /// The per-pod usage of an Object or External AverageValue target, `usage / status.replicas`
    /// rounded up. 1.38's `getPerPodUsage`: `MaxInt64` when `usage` is at least `MaxInt64` as a
    /// float64, 0 at zero replicas. Before: `int64(math.Ceil(usage / replicas))` on amd64, so
    /// `MinInt64` at zero replicas (±Inf or NaN) or out of range; `external_guard` adds the
    /// `MaxInt64` guard `GetExternalPerPodMetricReplicas` has from 1.34.
    pub fn per_pod_usage(self, usage: i64, status_replicas: i32, external_guard: bool) -> i64 {
        let saturated = usage as f64 >= i64::MAX as f64;
        if self.per_pod_usage_guard {
            if saturated {
                return i64::MAX;
            }
            if status_replicas == 0 {
                return 0;
            }
            return (usage as f64 / f64::from(status_replicas)).ceil() as i64;
        }
        if external_guard && saturated {
            return i64::MAX;
        }
        go_amd64_int64((usage as f64 / f64::from(status_replicas)).ceil())
    }
}

impl ControllerRelease {
    /// Whether `groupPods` ignores a pod in `phase` (besides deleted pods): Failed, and
    /// Succeeded in 1.38 (#141302); before, a Succeeded pod is missing without a sample and
    /// counts with one.
    pub fn ignores_phase(&self, phase: PodPhase) -> bool {
        self.ignored_phases.get(phase as usize).copied().unwrap_or(false)
    }
}

impl Default for ControllerRelease {
    /// The newest release's controller.
    fn default() -> Self {
        ControllerRelease::of(KubernetesVersion::LATEST)
    }
}

/// Go's `int32(x)` of a float64 on amd64 (`CVTTSD2SL`): truncation toward zero, and `MinInt32`
/// (the "integer indefinite" value) for NaN or a value outside the int32 range.
pub fn go_amd64_int32(x: f64) -> i32 {
    // Truncation keeps (-2^31 - 1, 2^31) in range; a NaN compares false.
    if x > -2_147_483_649.0 && x < 2_147_483_648.0 { x as i32 } else { i32::MIN }
}

/// Go's `int64(x)` of a float64 on amd64 (`CVTTSD2SQ`): truncation toward zero, and `MinInt64`
/// for NaN or a value outside the int64 range.
pub fn go_amd64_int64(x: f64) -> i64 {
    // -2^63 is exact in float64 and in range; 2^63 is the first float64 out of range above. A
    // NaN is in no range.
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x) { x as i64 } else { i64::MIN }
}

#[cfg(test)]
mod tests {
    use super::*;
    use KubernetesVersion::*;

    #[test]
    fn each_row_changes_at_its_release() {
        let at = |v| ControllerRelease::of(v);
        assert!(!at(V1_33).pod_overhead && at(V1_34).pod_overhead && at(V1_37).pod_overhead);
        assert!(!at(V1_38).pod_overhead);
        assert!(!at(V1_34).missing_container_error && at(V1_35).missing_container_error);
        assert!(!at(V1_33).external_per_pod_cap && at(V1_34).external_per_pod_cap);
        assert!(!at(V1_34).usage_ratio_cap && at(V1_35).usage_ratio_cap);
        assert!(!at(V1_34).external_sum_cap && at(V1_35).external_sum_cap);
        let (r37, r38) = (at(V1_37), at(V1_38));
        assert!(!r37.saturating_ceil && !r37.per_pod_usage_guard && !r37.ignores_phase(PodPhase::Succeeded));
        assert!(r38.saturating_ceil && r38.per_pod_usage_guard && r38.ignores_phase(PodPhase::Succeeded));
        assert!(!r37.exact_utilization && r38.exact_utilization);
        let zero = Quantity::parse_in("0e400", V1_38).unwrap();
        assert!(r37.approximate_f64(&zero).is_nan());
        assert_eq!(r38.approximate_f64(&zero), 0.0);
        for r in [r37, r38] {
            assert!(r.ignores_phase(PodPhase::Failed));
            assert!(!r.ignores_phase(PodPhase::Running) && !r.ignores_phase(PodPhase::Pending));
        }
        assert!(!at(V1_33).memory_binary_si && at(V1_34).memory_binary_si);
        assert!(!at(V1_33).retry_scale_update_on_conflict && at(V1_34).retry_scale_update_on_conflict);
        assert!(!at(V1_35).scaled_to_zero_condition && at(V1_36).scaled_to_zero_condition);
        assert!(!at(V1_36).object_error_in_order && at(V1_37).object_error_in_order);
        assert!(
            !at(V1_36).first_sync_at_creation && at(V1_37).first_sync_at_creation && at(V1_38).first_sync_at_creation
        );
        assert!(!at(V1_36).spec_change_at_once && at(V1_37).spec_change_at_once);
        assert_eq!(ControllerRelease::default().version, KubernetesVersion::LATEST);
    }

    /// A target of 2^64 + 1 milli-units: 1 milli (the low 64 bits) before 1.38, `MaxInt64` from
    /// 1.38 (#141305); an ordinary one is the same in every release.
    #[test]
    fn target_milli_value_wraps_before_1_38_and_saturates_from_1_38() {
        let huge = Quantity::parse("18446744073709551617m").unwrap();
        let ordinary = Quantity::parse("200Mi").unwrap();
        for v in [V1_33, V1_37] {
            assert!(!ControllerRelease::of(v).saturating_milli_value);
            assert_eq!(ControllerRelease::of(v).milli_value(&huge), 1);
            assert_eq!(ControllerRelease::of(v).milli_value(&Quantity::parse("1E").unwrap()), 0);
            assert_eq!(ControllerRelease::of(v).milli_value(&ordinary), 209_715_200_000);
        }
        assert_eq!(ControllerRelease::of(V1_38).milli_value(&huge), i64::MAX);
        assert_eq!(ControllerRelease::of(V1_38).milli_value(&ordinary), 209_715_200_000);
    }

    #[test]
    fn amd64_conversions_give_the_minimum_out_of_range() {
        for (x, want) in [(1.9, 1), (-1.9, -1), (2147483647.0, i32::MAX), (2147483648.0, i32::MIN)] {
            assert_eq!(go_amd64_int32(x), want, "{x}");
        }
        for (x, want) in [(-2147483648.9, i32::MIN), (-2147483649.0, i32::MIN), (f64::NAN, i32::MIN), (3e9, i32::MIN)] {
            assert_eq!(go_amd64_int32(x), want, "{x}");
        }
        for x in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 9.3e18, -9.3e18] {
            assert_eq!(go_amd64_int64(x), i64::MIN, "{x}");
        }
        assert_eq!(go_amd64_int64(-9_223_372_036_854_775_808.0), i64::MIN);
        assert_eq!(go_amd64_int64(1e18), 1_000_000_000_000_000_000);
    }

    #[test]
    fn ceil_saturates_from_1_38_only() {
        let (old, new) = (ControllerRelease::of(V1_37), ControllerRelease::of(V1_38));
        for (x, before, after) in [
            (1.2, 2, 2),
            (-1.5, -1, -1),
            (3e9, i32::MIN, i32::MAX),
            (-3e9, i32::MIN, i32::MIN),
            (f64::INFINITY, i32::MIN, i32::MAX),
            (f64::NAN, i32::MIN, 0),
        ] {
            assert_eq!((old.ceil_to_i32(x), new.ceil_to_i32(x)), (before, after), "{x}");
        }
    }

    #[test]
    fn per_pod_usage_at_zero_replicas_and_overflow() {
        let (r33, r37, r38) =
            (ControllerRelease::of(V1_33), ControllerRelease::of(V1_37), ControllerRelease::of(V1_38));
        assert_eq!(r37.per_pod_usage(500, 0, false), i64::MIN);
        assert_eq!(r37.per_pod_usage(0, 0, true), i64::MIN);
        assert_eq!(r38.per_pod_usage(500, 0, false), 0);
        assert_eq!(r37.per_pod_usage(1001, 2, false), 501);
        assert_eq!(r38.per_pod_usage(1001, 2, false), 501);
        // A saturated External sum: guarded from 1.34 (External) and in 1.38 (both).
        assert_eq!(r33.per_pod_usage(i64::MAX, 1, false), i64::MIN);
        assert_eq!(r37.per_pod_usage(i64::MAX, 1, true), i64::MAX);
        assert_eq!(r37.per_pod_usage(i64::MAX, 1, false), i64::MIN);
        assert_eq!(r38.per_pod_usage(i64::MAX, 0, false), i64::MAX);
    }
}
