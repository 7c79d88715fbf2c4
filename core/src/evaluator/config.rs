//! kube-controller-manager's configuration of the HPA controller: its flags, the two constants
//! of `horizontal.go` the flags do not reach, and the feature gates, with their defaults written
//! once, here.
//!
//! Mirrors `HPAControllerConfiguration` (`pkg/controller/podautoscaler/config/types.go`) with
//! the defaults of `RecommendedDefaultHPAControllerConfiguration`
//! (`pkg/controller/podautoscaler/config/v1alpha1/defaults.go`), which are also the defaults of
//! the flags (`cmd/kube-controller-manager/app/options/hpacontroller.go`). The deprecated
//! upscale and downscale forbidden windows (read by no controller since 1.12) and
//! `--concurrent-horizontal-pod-autoscaler-syncs` (how many HPAs sync at once, not what a sync
//! does) are left out.

use std::time::Duration;

use crate::api::quantity::Quantity;
use crate::api::v2::{HPAScalingRules, HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior};
use crate::defaults;
use crate::features::{FeatureGates, Gate, KubernetesVersion};

use super::release::ControllerRelease;
use super::replicas::{ReplicaCalculator, Tolerances};

/// `--horizontal-pod-autoscaler-sync-period`.
pub const SYNC_PERIOD_FLAG: &str = "--horizontal-pod-autoscaler-sync-period";
/// `--horizontal-pod-autoscaler-tolerance`.
pub const TOLERANCE_FLAG: &str = "--horizontal-pod-autoscaler-tolerance";
/// `--horizontal-pod-autoscaler-downscale-stabilization`.
pub const DOWNSCALE_STABILIZATION_FLAG: &str = "--horizontal-pod-autoscaler-downscale-stabilization";
/// `--horizontal-pod-autoscaler-cpu-initialization-period`.
pub const CPU_INITIALIZATION_PERIOD_FLAG: &str = "--horizontal-pod-autoscaler-cpu-initialization-period";
/// `--horizontal-pod-autoscaler-initial-readiness-delay`.
pub const INITIAL_READINESS_DELAY_FLAG: &str = "--horizontal-pod-autoscaler-initial-readiness-delay";
/// The name of `horizontal.go`'s `scaleUpLimitFactor` (not a flag).
pub const SCALE_UP_LIMIT_FACTOR_CONSTANT: &str = "scaleUpLimitFactor";
/// The name of `horizontal.go`'s `scaleUpLimitMinimum` (not a flag).
pub const SCALE_UP_LIMIT_MINIMUM_CONSTANT: &str = "scaleUpLimitMinimum";

/// What kube-controller-manager's HPA controller is configured with: `HPAControllerConfiguration`,
/// the legacy scale-up limit's constants and the feature gates the controller reads.
///
/// The defaults ([`HPAControllerConfiguration::new`], [`Default`]) are kube-controller-manager's;
/// every caller (the linter's rules, `explain`, `simulate`, the timing of scale-ups) starts from
/// them and changes what the user configured.
#[derive(Debug, Clone, PartialEq)]
pub struct HPAControllerConfiguration {
    /// `HorizontalPodAutoscalerSyncPeriod` (`--horizontal-pod-autoscaler-sync-period`, 15 s):
    /// how often the controller syncs each HPA.
    pub sync_period: Duration,
    /// `HorizontalPodAutoscalerTolerance` (`--horizontal-pod-autoscaler-tolerance`, 0.1): how far
    /// the usage ratio may stray from 1.0, both ways, before the count changes.
    pub tolerance: f64,
    /// `HorizontalPodAutoscalerDownscaleStabilizationWindow`
    /// (`--horizontal-pod-autoscaler-downscale-stabilization`, 5 min): the legacy path's window,
    /// and the fill-in for a nil `behavior.scaleDown.stabilizationWindowSeconds`.
    pub downscale_stabilization_window: Duration,
    /// `HorizontalPodAutoscalerCPUInitializationPeriod`
    /// (`--horizontal-pod-autoscaler-cpu-initialization-period`, 5 min): how long after its start
    /// a pod's cpu samples may be skipped.
    pub cpu_initialization_period: Duration,
    /// `HorizontalPodAutoscalerInitialReadinessDelay`
    /// (`--horizontal-pod-autoscaler-initial-readiness-delay`, 30 s): how long after its start a
    /// pod's readiness changes count as its first readiness.
    pub initial_readiness_delay: Duration,
    /// `scaleUpLimitFactor` (`horizontal.go`, 2.0): the legacy path's per-sync growth factor.
    /// Not a flag; the upstream unit tests set other values.
    pub scale_up_limit_factor: f64,
    /// `scaleUpLimitMinimum` (`horizontal.go`, 4.0): the legacy path's smallest per-sync limit.
    pub scale_up_limit_minimum: f64,
    /// `--feature-gates` (`HPAScaleToZero`, `HPAConfigurableTolerance`, `PodLevelResources` and
    /// `HPAGeneration` change what a sync does), and with them the Kubernetes release.
    pub gates: FeatureGates,
}

impl HPAControllerConfiguration {
    /// The default sync period.
    pub const DEFAULT_SYNC_PERIOD: Duration = Duration::from_secs(15);
    /// The default tolerance.
    pub const DEFAULT_TOLERANCE: f64 = 0.1;
    /// The default downscale stabilization window.
    pub const DEFAULT_DOWNSCALE_STABILIZATION_WINDOW: Duration = Duration::from_secs(300);
    /// The default cpu initialization period.
    pub const DEFAULT_CPU_INITIALIZATION_PERIOD: Duration = Duration::from_secs(300);
    /// The default initial readiness delay.
    pub const DEFAULT_INITIAL_READINESS_DELAY: Duration = Duration::from_secs(30);
    /// `scaleUpLimitFactor`.
    pub const DEFAULT_SCALE_UP_LIMIT_FACTOR: f64 = 2.0;
    /// `scaleUpLimitMinimum`.
    pub const DEFAULT_SCALE_UP_LIMIT_MINIMUM: f64 = 4.0;

    /// kube-controller-manager's defaults, with these feature gates.
    pub fn new(gates: FeatureGates) -> HPAControllerConfiguration {
        HPAControllerConfiguration {
            sync_period: Self::DEFAULT_SYNC_PERIOD,
            tolerance: Self::DEFAULT_TOLERANCE,
            downscale_stabilization_window: Self::DEFAULT_DOWNSCALE_STABILIZATION_WINDOW,
            cpu_initialization_period: Self::DEFAULT_CPU_INITIALIZATION_PERIOD,
            initial_readiness_delay: Self::DEFAULT_INITIAL_READINESS_DELAY,
            scale_up_limit_factor: Self::DEFAULT_SCALE_UP_LIMIT_FACTOR,
            scale_up_limit_minimum: Self::DEFAULT_SCALE_UP_LIMIT_MINIMUM,
            gates,
        }
    }

    /// The Kubernetes release whose controller this is (the release of the gates).
    pub fn release(&self) -> KubernetesVersion {
        self.gates.version()
    }

    /// The downscale stabilization window in whole seconds, as the controller stores it in a
    /// scale-down rule (Go: `(int32)(downscaleStabilisationWindow.Seconds())`, saturating).
    pub fn downscale_stabilization_seconds(&self) -> i32 {
        self.downscale_stabilization_window.as_secs_f64() as i32
    }

    /// The sync period in whole seconds (at least 1).
    pub fn sync_period_seconds(&self) -> i64 {
        i64::try_from(self.sync_period.as_secs()).unwrap_or(i64::MAX).max(1)
    }

    /// The sync period in whole milliseconds, saturating at `i64::MAX` as
    /// [`sync_period_seconds`](Self::sync_period_seconds) does (Go's `time.Duration` cannot be
    /// longer; a longer one is no reason to assume the 15 s default).
    pub fn sync_period_millis(&self) -> i64 {
        super::time::duration_millis(self.sync_period)
    }

    /// How long after its creation an HPA is first synced: at once from 1.37, one sync period
    /// before (`enqueueHPA`'s `AddRateLimited`; [`ControllerRelease::first_sync_at_creation`]).
    /// The later syncs are one sync period apart on every release.
    pub fn first_sync_after_creation(&self) -> Duration {
        if self.controller_release().first_sync_at_creation { Duration::ZERO } else { self.sync_period }
    }

    /// Whether an update of an HPA's spec is synced at once (1.37 and later, with
    /// `HPAGeneration` on: `updateHPA` sees `metadata.generation` change), rather than at the
    /// next periodic sync, at most one sync period later ([`ControllerRelease::spec_change_at_once`]).
    pub fn syncs_spec_change_at_once(&self) -> bool {
        self.controller_release().spec_change_at_once && self.gates.enabled(Gate::HPAGeneration)
    }

    /// What this release's controller does differently ([`ControllerRelease::of`]).
    pub fn controller_release(&self) -> ControllerRelease {
        ControllerRelease::of(self.release())
    }

    /// The replica calculator this configuration sets up (`NewReplicaCalculator`), with the
    /// release's arithmetic; pod-level requests count with gate `PodLevelResources` from 1.34
    /// ([`FeatureGates::pod_level_requests`]).
    pub fn replica_calculator(&self) -> ReplicaCalculator {
        ReplicaCalculator {
            cpu_initialization_period: self.cpu_initialization_period,
            delay_of_initial_readiness_status: self.initial_readiness_delay,
            pod_level_resources: self.gates.pod_level_requests(),
            release: self.controller_release(),
        }
    }

    /// `tolerancesForHpa` (`pkg/controller/podautoscaler/horizontal.go`): the flag
    /// (`--horizontal-pod-autoscaler-tolerance`) in both directions, replaced per direction by
    /// `behavior.scale{Up,Down}.tolerance` when gate `HPAConfigurableTolerance` is on; with the
    /// gate off an HPA's own tolerance is ignored. The one place that decides which tolerance
    /// applies: the controller's sync, `explain`'s effective behavior, rule HPA306 and
    /// `hpa-lint diagnose` all ask it.
    pub fn tolerances_for_hpa<'a>(&self, behavior: Option<&'a HorizontalPodAutoscalerBehavior>) -> HpaTolerances<'a> {
        let gate = self.gates.enabled(Gate::HPAConfigurableTolerance);
        let release = self.controller_release();
        let direction = |field: &'static str, rules: Option<&'a HPAScalingRules>| {
            let written = rules.and_then(|r| r.tolerance.as_ref());
            let used = written.filter(|_| gate).map_or(self.tolerance, |q| release.approximate_f64(q));
            DirectionTolerance { field, written, used, honored: gate }
        };
        HpaTolerances {
            scale_up: direction("scaleUp", behavior.and_then(|b| b.scale_up.as_ref())),
            scale_down: direction("scaleDown", behavior.and_then(|b| b.scale_down.as_ref())),
        }
    }

    /// The behavior the controller works with: `spec.behavior` completed by API defaulting
    /// (`GenerateHPAScaleUpRules` / `GenerateHPAScaleDownRules`) and with a nil scale-down
    /// window filled from the downscale-stabilization flag
    /// (`maybeInitScaleDownStabilizationWindow`). `None` when `spec.behavior` is nil.
    pub fn effective_behavior(&self, hpa: &HorizontalPodAutoscaler) -> Option<HorizontalPodAutoscalerBehavior> {
        hpa.spec.behavior.as_ref().map(|b| self.complete_behavior(b))
    }

    /// [`Self::effective_behavior`] of a `spec.behavior`.
    pub fn complete_behavior(&self, behavior: &HorizontalPodAutoscalerBehavior) -> HorizontalPodAutoscalerBehavior {
        let up = defaults::scale_up_rules(behavior.scale_up.as_ref());
        let mut down = defaults::scale_down_rules(behavior.scale_down.as_ref());
        if down.stabilization_window_seconds.is_none() {
            down.stabilization_window_seconds = Some(self.downscale_stabilization_seconds());
        }
        HorizontalPodAutoscalerBehavior { scale_up: Some(up), scale_down: Some(down) }
    }
}

/// What [`HPAControllerConfiguration::tolerances_for_hpa`] decides for one HPA, direction by
/// direction: the tolerance the controller uses and the HPA's own, when it sets one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HpaTolerances<'a> {
    /// `behavior.scaleUp`.
    pub scale_up: DirectionTolerance<'a>,
    /// `behavior.scaleDown`.
    pub scale_down: DirectionTolerance<'a>,
}

impl<'a> HpaTolerances<'a> {
    /// The tolerances the controller judges usage ratios with (`Tolerances`).
    pub fn tolerances(&self) -> Tolerances {
        Tolerances { scale_down: self.scale_down.used, scale_up: self.scale_up.used }
    }

    /// Both directions, scale-up first.
    pub fn directions(&self) -> [DirectionTolerance<'a>; 2] {
        [self.scale_up, self.scale_down]
    }

    /// The directions whose own tolerance the controller ignores (gate off), scale-up first.
    pub fn ignored(&self) -> impl Iterator<Item = DirectionTolerance<'a>> {
        self.directions().into_iter().filter(|d| d.ignored().is_some())
    }
}

/// One direction of [`HpaTolerances`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DirectionTolerance<'a> {
    /// The direction's field in `spec.behavior` (`scaleUp`, `scaleDown`).
    pub field: &'static str,
    /// The HPA's `tolerance` for this direction, when it sets one.
    pub written: Option<&'a Quantity>,
    /// The tolerance the controller uses: `written` when honored, else the flag's.
    pub used: f64,
    /// Whether the controller uses a written tolerance (gate `HPAConfigurableTolerance` on).
    pub honored: bool,
}

impl<'a> DirectionTolerance<'a> {
    /// The HPA's own tolerance when the controller ignores it (written, gate off).
    pub fn ignored(&self) -> Option<&'a Quantity> {
        self.written.filter(|_| !self.honored)
    }

    /// The HPA's own tolerance when the controller uses it.
    pub fn in_use(&self) -> Option<&'a Quantity> {
        self.written.filter(|_| self.honored)
    }
}

impl Default for HPAControllerConfiguration {
    /// kube-controller-manager's defaults with the newest release's feature gates.
    fn default() -> Self {
        HPAControllerConfiguration::new(FeatureGates::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_kube_controller_managers() {
        let c = HPAControllerConfiguration::default();
        assert_eq!(c.sync_period, Duration::from_secs(15));
        assert_eq!(c.tolerance, 0.1);
        assert_eq!(c.downscale_stabilization_seconds(), 300);
        assert_eq!(c.cpu_initialization_period, Duration::from_secs(300));
        assert_eq!(c.initial_readiness_delay, Duration::from_secs(30));
        assert_eq!((c.scale_up_limit_factor, c.scale_up_limit_minimum), (2.0, 4.0));
        assert_eq!(c.release(), KubernetesVersion::LATEST);
    }

    #[test]
    fn first_sync_one_period_after_creation_before_1_37() {
        use KubernetesVersion::*;
        let at = |v, gates: &str| {
            let mut g = FeatureGates::new(v);
            g.apply(gates).unwrap();
            HPAControllerConfiguration { sync_period: Duration::from_secs(30), ..HPAControllerConfiguration::new(g) }
        };
        for v in [V1_33, V1_34, V1_35, V1_36] {
            assert_eq!(at(v, "").first_sync_after_creation(), Duration::from_secs(30), "{v}");
            assert!(!at(v, "").syncs_spec_change_at_once(), "{v}");
        }
        for v in [V1_37, V1_38] {
            assert_eq!(at(v, "").first_sync_after_creation(), Duration::ZERO, "{v}");
            assert!(at(v, "").syncs_spec_change_at_once(), "{v}");
        }
        // Without generations (1.37 with the beta gate off; it is locked on from 1.38) the
        // update handler cannot tell a spec change: rate limited.
        assert!(!at(V1_37, "HPAGeneration=false").syncs_spec_change_at_once());
        assert_eq!(at(V1_37, "HPAGeneration=false").first_sync_after_creation(), Duration::ZERO);
    }

    #[test]
    fn whole_seconds() {
        let c = HPAControllerConfiguration {
            sync_period: Duration::from_millis(500),
            downscale_stabilization_window: Duration::from_millis(90_900),
            ..Default::default()
        };
        assert_eq!((c.sync_period_seconds(), c.downscale_stabilization_seconds()), (1, 90));
        assert_eq!(c.sync_period_millis(), 500);
        // Beyond i64 milliseconds (`--sync-period` takes any u64 of seconds): saturated, as the
        // seconds are, never the 15 s default.
        let c = HPAControllerConfiguration { sync_period: Duration::from_secs(u64::MAX), ..Default::default() };
        assert_eq!((c.sync_period_seconds(), c.sync_period_millis()), (i64::MAX, i64::MAX));
    }

    #[test]
    fn tolerances_for_hpa_uses_the_hpas_own_only_with_its_gate_on() {
        let rules = |t: &str| HPAScalingRules { tolerance: Some(Quantity::parse(t).unwrap()), ..Default::default() };
        let behavior = HorizontalPodAutoscalerBehavior { scale_up: Some(rules("0.02")), scale_down: None };
        let on = HPAControllerConfiguration {
            tolerance: 0.2,
            ..HPAControllerConfiguration::new(FeatureGates::new(KubernetesVersion::V1_35))
        };
        let t = on.tolerances_for_hpa(Some(&behavior));
        assert_eq!(t.tolerances(), Tolerances { scale_up: 0.02, scale_down: 0.2 });
        assert_eq!((t.scale_up.in_use().map(|q| q.to_string()), t.scale_up.ignored()), (Some("20m".into()), None));
        assert_eq!(t.ignored().count(), 0);
        let off = HPAControllerConfiguration { gates: FeatureGates::new(KubernetesVersion::V1_33), ..on.clone() };
        let t = off.tolerances_for_hpa(Some(&behavior));
        assert_eq!(t.tolerances(), Tolerances::uniform(0.2));
        let ignored: Vec<_> = t.ignored().map(|d| (d.field, d.written.map(|q| q.to_string()), d.used)).collect();
        assert_eq!(ignored, [("scaleUp", Some("20m".to_string()), 0.2)]);
        // No behavior: the flag both ways, nothing ignored.
        for c in [&on, &off] {
            let t = c.tolerances_for_hpa(None);
            assert_eq!((t.tolerances(), t.ignored().count()), (Tolerances::uniform(0.2), 0));
        }
        // A zero written with a large exponent: NaN before 1.38 (never within: every ratio
        // scales), 0 in 1.38 (#141937).
        let zero = HorizontalPodAutoscalerBehavior { scale_up: Some(rules("0e400")), scale_down: None };
        let at = |v| HPAControllerConfiguration { gates: FeatureGates::new(v), ..on.clone() };
        assert!(at(KubernetesVersion::V1_37).tolerances_for_hpa(Some(&zero)).tolerances().scale_up.is_nan());
        assert_eq!(at(KubernetesVersion::V1_38).tolerances_for_hpa(Some(&zero)).tolerances().scale_up, 0.0);
    }
}
