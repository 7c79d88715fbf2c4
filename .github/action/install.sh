#!/usr/bin/env bash
# Installs hpa-lint for the GitHub Action (action.yml): the release binary for this runner,
# verified against its published SHA-256 checksum; when the release has no binary for this
# platform (or cannot be reached), `cargo install --locked --git` builds the same tag instead.
# A checksum that does not match stops the install: it never falls back. `latest` is resolved
# to its release tag first (the redirect of <releases>/latest), so that the binary, the cache
# and the fallback are all that one tag: never the default branch's HEAD.
#
# Environment:
#   HPA_LINT_VERSION       a release tag (v0.1.0), `latest`, or empty: the tag the action is
#                          used at (HPA_LINT_ACTION_REF), else `latest`
#   HPA_LINT_ACTION_REF    the ref the action is used at (github.action_ref): a tag, a branch
#                          or a commit SHA (which names no release: set `version:` with it)
#   HPA_LINT_INSTALL_DIR   where the binary goes (default: $RUNNER_TOOL_CACHE/hpa-lint/<version>)
#   HPA_LINT_REPOSITORY    the repository URL (default: https://github.com/hpa-toolkit/hpa-toolkit)
#   HPA_LINT_DOWNLOAD_URL  where release assets are (default: <repository>/releases)
#   HPA_LINT_FALLBACK      `cargo` (default) or `never`
#   HPA_LINT_CARGO         the cargo to run for the fallback (default: cargo)
# The binary's directory is appended to $GITHUB_PATH and written as `path` to $GITHUB_OUTPUT.
set -euo pipefail

# Windows runners are refused first, before anything is downloaded or built: there is no
# Windows release binary, and the steps (bash scripts, `install`, a binary without `.exe`)
# assume Linux or macOS. GitHub sets RUNNER_OS; Git Bash's uname says MINGW64_NT-..., MSYS_NT-...
runner_os=${RUNNER_OS:-$(uname -s)}
case "$runner_os" in
  Windows | MINGW* | MSYS* | CYGWIN*)
    echo "::error title=hpa-lint::Windows runners are not supported (no Windows binary is released); run this job on ubuntu-latest or macos-latest: the manifests lint the same" >&2
    exit 1
    ;;
esac

version=${HPA_LINT_VERSION:-}
action_ref=${HPA_LINT_ACTION_REF:-}
repository=${HPA_LINT_REPOSITORY:-https://github.com/hpa-toolkit/hpa-toolkit}
download=${HPA_LINT_DOWNLOAD_URL:-$repository/releases}
fallback=${HPA_LINT_FALLBACK:-cargo}
cargo=${HPA_LINT_CARGO:-cargo}

if [ -z "$version" ]; then
  case "$action_ref" in
    v[0-9]*) version=$action_ref ;;
    *)
      if [[ "$action_ref" =~ ^[0-9a-f]{40}$ ]]; then
        echo "::warning title=hpa-lint::the action is pinned by commit ($action_ref) without a version input: installing the latest release; set version: to the release of that commit (README, \"GitHub Action\")" >&2
      fi
      version=latest
      ;;
  esac
fi
case "$version" in
  latest | v[0-9]*) ;;
  *) echo "::error title=hpa-lint::version must be a release tag such as v0.1.0, or latest; got '$version'" >&2; exit 2 ;;
esac

# `latest` as its tag: GitHub redirects <releases>/latest to <releases>/tag/<tag>.
if [ "$version" = latest ]; then
  resolved=$(curl -fsSL --retry 3 --retry-delay 2 -o /dev/null -w '%{url_effective}' "$download/latest") || resolved=""
  tag=${resolved##*/tag/}
  case "$tag" in
    v[0-9]*) ;;
    *)
      echo "::error title=hpa-lint::cannot resolve the latest release ($download/latest gave '$resolved'); set version: to a release tag" >&2
      exit 1
      ;;
  esac
  # A tag is one path segment of safe characters (it names the cache directory too).
  if ! [[ "$tag" =~ ^v[0-9][0-9A-Za-z.+-]*$ ]]; then
    echo "::error title=hpa-lint::the latest release has an unexpected tag '$tag'" >&2
    exit 1
  fi
  version=$tag
  echo "hpa-lint: latest is $version"
fi
dir=${HPA_LINT_INSTALL_DIR:-${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/hpa-lint/$version}

case "$(uname -s)/$(uname -m)" in
  Linux/x86_64 | Linux/amd64) target=x86_64-unknown-linux-musl ;;
  Linux/aarch64 | Linux/arm64) target=aarch64-unknown-linux-musl ;;
  Darwin/x86_64) target=x86_64-apple-darwin ;;
  Darwin/arm64 | Darwin/aarch64) target=aarch64-apple-darwin ;;
  *) target="" ;;
esac

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

publish() {
  echo "hpa-lint: $("$dir/hpa-lint" --version) in $dir"
  if [ -n "${GITHUB_PATH:-}" ]; then echo "$dir" >>"$GITHUB_PATH"; fi
  if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "path=$dir/hpa-lint" >>"$GITHUB_OUTPUT"; fi
}

mkdir -p "$dir"
if [ -x "$dir/hpa-lint" ]; then
  publish
  exit 0
fi

# The release binary, verified.
if [ -n "$target" ]; then
  asset="hpa-lint-$target.tar.gz"
  base="$download/download/$version"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  if curl -fsSL --retry 3 --retry-delay 2 -o "$work/$asset" "$base/$asset" \
    && curl -fsSL --retry 3 --retry-delay 2 -o "$work/$asset.sha256" "$base/$asset.sha256"; then
    expected=$(cut -d' ' -f1 <"$work/$asset.sha256" | tr -d '\r\n')
    actual=$(sha256 "$work/$asset")
    if [ -z "$expected" ] || [ "$expected" != "$actual" ]; then
      echo "::error title=hpa-lint::checksum mismatch for $asset: expected '$expected', got '$actual'; not installing" >&2
      exit 1
    fi
    echo "hpa-lint: $asset sha256 $actual verified"
    tar -xzf "$work/$asset" -C "$work"
    install -m 0755 "$work/hpa-lint" "$dir/hpa-lint"
    publish
    exit 0
  fi
  echo "hpa-lint: no release binary at $base/$asset" >&2
else
  echo "hpa-lint: no release binary for $(uname -s)/$(uname -m)" >&2
fi

# The fallback: build the same tag from source (a tag always: `latest` was resolved above).
if [ "$fallback" != cargo ]; then
  echo "::error title=hpa-lint::no release binary, and HPA_LINT_FALLBACK=$fallback" >&2
  exit 1
fi
echo "hpa-lint: building with cargo install --locked --git $repository --tag $version"
"$cargo" install --locked --git "$repository" --tag "$version" --root "$dir/cargo" hpa-lint
install -m 0755 "$dir/cargo/bin/hpa-lint" "$dir/hpa-lint"
publish
