//! `hpa-webhook`: a mutating and validating admission webhook for HorizontalPodAutoscalers.
