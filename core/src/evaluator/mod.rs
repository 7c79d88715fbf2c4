//! The dry-run replica evaluator: what the HPA controller in kube-controller-manager computes
//! on each sync (replica calculation, normalization, conditions), as a pure function of its
//! inputs and of time passed in.
