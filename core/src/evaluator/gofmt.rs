//! Go renderings that end up in the controller's messages.

use crate::api::LabelSelector;

/// `fmt.Sprintf("%+v", selector)` for a `*metav1.LabelSelector`: the gogo-protobuf generated
/// `String()` method (`nil` for a nil pointer, match labels sorted by key).
pub(crate) fn label_selector(selector: Option<&LabelSelector>) -> String {
    let Some(sel) = selector else {
        return "nil".to_string();
    };
    let mut labels = String::from("map[string]string{");
    for (k, v) in &sel.match_labels {
        labels.push_str(&format!("{k}: {v},"));
    }
    labels.push('}');
    let mut exprs = String::from("[]LabelSelectorRequirement{");
    for r in &sel.match_expressions {
        // Go renders each element with its own `String()` and strips the leading `&`.
        exprs.push_str(&format!(
            "LabelSelectorRequirement{{Key:{},Operator:{},Values:[{}],}},",
            r.key,
            r.operator,
            r.values.join(" ")
        ));
    }
    exprs.push('}');
    format!("&LabelSelector{{MatchLabels:{labels},MatchExpressions:{exprs},}}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::meta::LabelSelectorRequirement;

    #[test]
    fn selectors_render_like_gogo() {
        let mut sel = LabelSelector::default();
        assert_eq!(label_selector(None), "nil");
        assert_eq!(
            label_selector(Some(&sel)),
            "&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}"
        );
        sel.match_labels.insert("b".into(), "2".into());
        sel.match_labels.insert("a".into(), "1".into());
        sel.match_expressions.push(LabelSelectorRequirement {
            key: "k".into(),
            operator: "In".into(),
            values: vec!["x".into(), "y".into()],
        });
        assert_eq!(
            label_selector(Some(&sel)),
            "&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},\
             MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[x y],},},}"
        );
    }
}
