//! `#[derive(Decode)]` for hpa-core's API types: the struct half of hpa-core's one decoder
//! (`hpa_core::api::decode`), which decodes as Go's `encoding/json` (in its
//! `sigs.k8s.io/json` fork) decodes into the same Go struct.
//!
//! The derive only lists the fields: their JSON names (from `#[serde(rename = ..)]` and
//! `#[serde(rename_all = ..)]`, so that a name is written once for both directions, or from
//! the same keys under `#[go(..)]` for types that are never serialized) and, where Go's type
//! is not the one the Rust type implies, the Go type name that errors print. Everything else
//! (matching keys, unknown and duplicate fields, `null`, type errors) is
//! `Decoder::decode_struct`'s.
//!
//! ```ignore
//! #[derive(Decode)]
//! #[go(package = "v1")]                 // the Go package; default: the object's own version
//! #[serde(rename_all = "camelCase")]
//! pub struct LabelSelectorRequirement {
//!     pub key: String,
//!     #[go(type = "LabelSelectorOperator")] // a Go named type (in the struct's package)
//!     pub operator: String,
//!     pub values: Vec<String>,
//! }
//! ```
//!
//! A field added in a later release than the oldest supported says so, and is an unknown
//! field when the decoder decodes with an older release's types (`DecodeOptions::in_release`):
//!
//! ```ignore
//! #[go(since = "1.37")]
//! pub observed_generation: Option<i64>,
//! ```
//!
//! An enum of unit variants is a Go string type with a fixed set of values: each variant is its
//! name (or its `rename_all = "lowercase"` form), and any other string is an error naming the
//! type and the values (`unknown scope "x": expected file, directory or all`).
//!
//! ```ignore
//! #[derive(Decode)]
//! #[go(package = "config", rename_all = "lowercase")]
//! pub enum Scope { File, Directory, All }
//! ```
//!
//! A struct that reads part of a larger type (a file of the tools' own that takes a pod spec
//! pasted from a workload) names the keys of the rest, which are taken and their values skipped,
//! neither decoded nor unknown fields (nor named among the fields an unknown one could be):
//!
//! ```ignore
//! #[go(package = "scenario", ignore = "K8S_POD_FIELDS")] // a `const K8S_POD_FIELDS: &[&str]`
//! ```

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;
use syn::{Data, DeriveInput, Fields, LitStr, parse_macro_input};

/// Derives `hpa_core::api::decode::Decode` for a struct with named fields or an enum of unit
/// variants.
#[proc_macro_derive(Decode, attributes(go))]
pub fn derive_decode(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// What the attributes of the struct say.
#[derive(Default)]
struct Container {
    package: Option<String>,
    name: Option<String>,
    rename_all: Option<String>,
    /// A path to a `&[&str]` of keys taken and skipped (`ignore = "K8S_POD_FIELDS"`).
    ignore: Option<syn::Path>,
}

/// What the attributes of a field say.
#[derive(Default)]
struct Field {
    rename: Option<String>,
    go_type: Option<String>,
    since: u32,
    skip: bool,
}

fn expand(input: &DeriveInput) -> syn::Result<TokenStream2> {
    let ident = &input.ident;
    if let Data::Enum(data) = &input.data {
        return expand_enum(input, data);
    }
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(
            ident,
            "Decode can be derived for structs and enums only; write the impl by hand",
        ));
    };
    let Fields::Named(named) = &data.fields else {
        return Err(syn::Error::new_spanned(ident, "Decode can be derived for structs with named fields only"));
    };
    let container = container_attributes(input)?;
    let go_name = container.name.clone().unwrap_or_else(|| ident.to_string());
    let krate = quote!(::hpa_core::api::decode);

    let mut names = Vec::new();
    let mut since = Vec::new();
    let mut arms = Vec::new();
    for field in &named.named {
        let attributes = field_attributes(field)?;
        if attributes.skip {
            continue;
        }
        let Some(member) = &field.ident else { continue };
        let rust_name = member.to_string();
        let rust_name = rust_name.strip_prefix("r#").unwrap_or(&rust_name);
        let json = match attributes.rename {
            Some(name) => name,
            None => rename(rust_name, container.rename_all.as_deref())?,
        };
        let go_type = match &attributes.go_type {
            None => quote!(#krate::GoType::Default),
            Some(t) if t.contains('.') => quote!(#krate::GoType::Named(#t)),
            Some(t) => match &container.package {
                Some(p) => {
                    let absolute = format!("{p}.{t}");
                    quote!(#krate::GoType::Named(#absolute))
                }
                None => quote!(#krate::GoType::InObjectPackage(#t)),
            },
        };
        let index = names.len();
        names.push(json);
        since.push(attributes.since);
        arms.push(quote! {
            #index => #krate::Decode::decode(&mut this.#member, d, #go_type),
        });
    }

    let ignored = match &container.ignore {
        Some(path) => quote!(#path),
        None => quote!(&[]),
    };
    Ok(decode_impl(
        input,
        &container,
        &go_name,
        quote!(),
        quote! {
            const FIELDS: &[&str] = &[#(#names),*];
            const SINCE: &[u32] = &[#(#since),*];
            d.decode_struct(self, ty, #go_name, FIELDS, SINCE, #ignored, |this: &mut Self, d, index| match index {
                #(#arms)*
                _ => ::std::result::Result::Ok(()),
            })
        },
    ))
}

/// The `Decode` impl around the body of its `decode` (which sees `self`, `d` and `ty`):
/// `go_type` is the container's Go package and `go_name`; `methods` are further methods of the
/// impl (a `shape`).
fn decode_impl(
    input: &DeriveInput,
    container: &Container,
    go_name: &str,
    methods: TokenStream2,
    body: TokenStream2,
) -> TokenStream2 {
    let ident = &input.ident;
    let krate = quote!(::hpa_core::api::decode);
    let package = match &container.package {
        Some(p) => quote!(#krate::Package::Fixed(#p)),
        None => quote!(#krate::Package::Object),
    };
    let (impl_generics, type_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        impl #impl_generics #krate::Decode for #ident #type_generics #where_clause {
            fn go_type(package: &str) -> ::std::string::String {
                #krate::Package::name(#package, package, #go_name)
            }

            #methods

            fn decode<'de, S: #krate::Source<'de>>(
                &mut self,
                d: &mut #krate::Decoder<'de, S>,
                ty: #krate::GoType,
            ) -> ::std::result::Result<(), #krate::Abort> {
                #body
            }
        }
    }
}

/// An enum of unit variants: a string, one of the variants' names.
fn expand_enum(input: &DeriveInput, data: &syn::DataEnum) -> syn::Result<TokenStream2> {
    let ident = &input.ident;
    let container = container_attributes(input)?;
    let go_name = container.name.clone().unwrap_or_else(|| ident.to_string());
    let krate = quote!(::hpa_core::api::decode);
    let mut names = Vec::new();
    let mut arms = Vec::new();
    for variant in &data.variants {
        if !matches!(variant.fields, Fields::Unit) {
            return Err(syn::Error::new_spanned(variant, "Decode can be derived for enums of unit variants only"));
        }
        let member = &variant.ident;
        let name = match container.rename_all.as_deref() {
            None => member.to_string(),
            Some("lowercase") => member.to_string().to_lowercase(),
            Some(other) => {
                return Err(syn::Error::new_spanned(
                    ident,
                    format!("rename_all = {other:?} is not supported by Decode on an enum"),
                ));
            }
        };
        arms.push(quote!(#name => #ident::#member,));
        names.push(name);
    }
    // `unknown scope "x": expected file, directory or all`: the type's name in lower-case words.
    let what = words(&ident.to_string());
    let expected = match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => return Err(syn::Error::new_spanned(ident, "Decode needs at least one variant")),
    };
    let message = format!("unknown {what} {{other:?}}: expected {expected}");
    Ok(decode_impl(
        input,
        &container,
        &go_name,
        // A value of another type is worded as one of another value: `scope: expected file,
        // directory or all, found 5` (hpa-yaml's `plain_message`), not "expected a string".
        quote! {
            fn shape() -> #krate::Shape {
                #krate::Shape::Described(#expected)
            }
        },
        quote! {
            let mut name = ::std::string::String::new();
            match d.peek()? {
                #krate::Kind::String => {}
                #krate::Kind::Null => return d.skip(),
                other => return d.mismatch::<Self>(other.go_name(), ty),
            }
            #krate::Decode::decode(&mut name, d, ty)?;
            *self = match name.as_str() {
                #(#arms)*
                other => return ::std::result::Result::Err(d.fail(::std::format!(#message))),
            };
            ::std::result::Result::Ok(())
        },
    ))
}

/// `LogFormat` → `log format`.
fn words(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_uppercase() && !out.is_empty() {
            out.push(' ');
        }
        out.extend(c.to_lowercase());
    }
    out
}

fn container_attributes(input: &DeriveInput) -> syn::Result<Container> {
    let mut out = Container::default();
    for attr in &input.attrs {
        if attr.path().is_ident("go") {
            attr.parse_nested_meta(|meta| {
                let value: LitStr = meta.value()?.parse()?;
                if meta.path.is_ident("ignore") {
                    out.ignore = Some(value.parse()?);
                } else if meta.path.is_ident("package") {
                    out.package = Some(value.value());
                } else if meta.path.is_ident("name") {
                    out.name = Some(value.value());
                } else if meta.path.is_ident("rename_all") {
                    out.rename_all = Some(value.value());
                } else {
                    return Err(meta.error("expected `package`, `name`, `rename_all` or `ignore`"));
                }
                Ok(())
            })?;
        } else if attr.path().is_ident("serde") {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename_all") {
                    let value: LitStr = meta.value()?.parse()?;
                    out.rename_all.get_or_insert(value.value());
                } else {
                    skip_value(&meta)?;
                }
                Ok(())
            })?;
        }
    }
    Ok(out)
}

fn field_attributes(field: &syn::Field) -> syn::Result<Field> {
    let mut out = Field::default();
    for attr in &field.attrs {
        if attr.path().is_ident("go") {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("skip") {
                    out.skip = true;
                    return Ok(());
                }
                let value: LitStr = meta.value()?.parse()?;
                if meta.path.is_ident("type") {
                    out.go_type = Some(value.value());
                } else if meta.path.is_ident("rename") {
                    out.rename = Some(value.value());
                } else if meta.path.is_ident("since") {
                    out.since = value
                        .value()
                        .strip_prefix("1.")
                        .and_then(|minor| minor.parse().ok())
                        .ok_or_else(|| meta.error("expected a release, `1.N`"))?;
                } else {
                    return Err(meta.error("expected `type`, `rename`, `since` or `skip`"));
                }
                Ok(())
            })?;
        } else if attr.path().is_ident("serde") {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") && meta.input.peek(syn::Token![=]) {
                    let value: LitStr = meta.value()?.parse()?;
                    out.rename.get_or_insert(value.value());
                } else {
                    skip_value(&meta)?;
                }
                Ok(())
            })?;
        }
    }
    Ok(out)
}

/// Consumes `= value` or `(...)` of a serde key this derive does not read.
fn skip_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_value(&inner))?;
    }
    Ok(())
}

/// serde's `rename_all` for the two conventions the API uses.
fn rename(field: &str, rule: Option<&str>) -> syn::Result<String> {
    let words = field.split('_').filter(|w| !w.is_empty());
    let capitalize = |w: &str| {
        let mut chars = w.chars();
        chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
    };
    Ok(match rule {
        None => field.to_string(),
        Some("camelCase") => {
            let mut out = String::new();
            for (i, w) in words.enumerate() {
                out.push_str(&if i == 0 { w.to_string() } else { capitalize(w) });
            }
            out
        }
        Some("PascalCase") => words.map(capitalize).collect(),
        Some("lowercase") => field.replace('_', ""),
        Some(other) => {
            return Err(syn::Error::new(
                proc_macro2::Span::call_site(),
                format!("rename_all = {other:?} is not supported by Decode"),
            ));
        }
    })
}
