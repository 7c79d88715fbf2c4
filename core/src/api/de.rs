//! Serde helpers that give Go's `encoding/json` semantics to our types.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};

/// A JSON `null` leaves a non-pointer Go field at its zero value; so does it here.
pub fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// `map[string]string` where a `null` value decodes as `""`.
pub fn string_map<'de, D>(d: D) -> Result<BTreeMap<String, String>, D::Error>
where
    D: Deserializer<'de>,
{
    let raw: Option<BTreeMap<String, Option<String>>> = Option::deserialize(d)?;
    Ok(raw.unwrap_or_default().into_iter().map(|(k, v)| (k, v.unwrap_or_default())).collect())
}

/// `[]string` where a `null` element decodes as `""`.
pub fn string_list<'de, D>(d: D) -> Result<Vec<String>, D::Error>
where
    D: Deserializer<'de>,
{
    let raw: Option<Vec<Option<String>>> = Option::deserialize(d)?;
    Ok(raw.unwrap_or_default().into_iter().map(Option::unwrap_or_default).collect())
}

/// Go's `omitempty` for integers.
pub fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}

/// Go's `omitempty` for integers.
pub fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}
