//! Benchmark of a full cluster read (`hpa-lint cluster -A`'s reading half), driven by
//! `bench/cluster/run.sh` (`cargo bench -p hpa-tests --bench cluster_read -- serve|read ...`).
//!
//! `serve DIR HPAS WORKLOADS` starts the test API server, loads HPAS HPAs and WORKLOADS
//! workloads (Deployments, ReplicaSets and StatefulSets in 3:2:1, made from the HPA201 lint
//! fixture's `web` by `fixtures::BenchCluster`, each with the managed fields a server-side apply
//! leaves), writes `DIR/kubeconfig` and serves until its standard input closes (at most ten
//! minutes); a line `relist` on it makes every watch relist at once (frozen past the watches'
//! timeout, history compacted, then `410 Gone`: a restarted kube-apiserver), and writes
//! `DIR/relisted`. With a fifth argument CHURN, it then updates CHURN workloads a minute, round
//! robin (a new image tag in the pod template: a MODIFIED event each, as a rollout makes), for
//! `bench/soak/run.sh`'s context cache; that cluster also holds one Deployment without requests
//! per namespace (`BenchCluster::without_requests`), for the soak client's HPA201 checks.
//!
//! `read KUBECONFIG MODE` reads everything in all namespaces once and prints one
//! line: `MODE seconds objects peak_rss_kib`. MODE `inventory` is `hpa_cluster::read_inventory`
//! (pages parsed, objects trimmed to hpa-core's values); `lists` is the baseline: the same
//! paginated lists parsed and dropped; `lint` is the whole `hpa-lint cluster -A -o json`
//! (read, check, render).

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use hpa_cluster::{ClientOptions, Cluster, Scope, kinds, read_inventory};
use hpa_tests::apiserver::TestApiServer;
use hpa_tests::apiserver::fixtures::BenchCluster;
use serde_json::{Value, json};

fn main() {
    // `cargo bench` appends `--bench`; the arguments are the ones before it.
    let args: Vec<String> = std::env::args().filter(|a| a != "--bench").collect();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a tokio runtime");
    match args.get(1).map(String::as_str) {
        Some("serve") if args.len() == 5 || args.len() == 6 => runtime.block_on(serve(
            PathBuf::from(&args[2]),
            args[3].parse().expect("HPAS is a number"),
            args[4].parse().expect("WORKLOADS is a number"),
            args.get(5).map_or(0, |c| c.parse().expect("CHURN is a number")),
        )),
        // The whole command runs its own runtime: not inside this one.
        Some("read") if args.len() == 4 && args[3] == "lint" => lint(&args[2]),
        Some("read") if args.len() == 4 => runtime.block_on(read(PathBuf::from(&args[2]), &args[3])),
        _ => {
            eprintln!(
                "usage: cluster_read serve DIR HPAS WORKLOADS [CHURN] | cluster_read read KUBECONFIG inventory|lists|lint"
            );
            std::process::exit(2);
        }
    }
}

async fn serve(dir: PathBuf, hpas: usize, workloads: usize, churn_per_minute: u64) {
    let server = TestApiServer::start().await;
    let cluster = BenchCluster::new();
    let started = Instant::now();
    for i in 0..workloads {
        server.apply_as(&[cluster.workload(i)], "argocd-controller", "Apply");
    }
    for i in 0..hpas {
        server.apply_as(&[cluster.hpa(i)], "argocd-controller", "Apply");
    }
    if churn_per_minute > 0 {
        // The soak test's HPA201 checks: one Deployment without requests per namespace.
        for n in 0..BenchCluster::NAMESPACES {
            server.apply_as(&[cluster.without_requests(n)], "argocd-controller", "Apply");
        }
    }
    let kubeconfig = server.write_kubeconfig(&dir);
    eprintln!(
        "serving {hpas} HPAs and {workloads} workloads at {} (loaded in {:.1}s); kubeconfig {}",
        server.url(),
        started.elapsed().as_secs_f64(),
        kubeconfig.display()
    );
    std::fs::write(dir.join("ready"), "").expect("writing the ready file");
    if churn_per_minute > 0 && workloads > 0 {
        let (server, cluster) = (&server, &cluster);
        let churn = async move {
            let mut ticker =
                tokio::time::interval(Duration::from_secs(60) / u32::try_from(churn_per_minute).unwrap_or(u32::MAX));
            for n in 0usize.. {
                ticker.tick().await;
                let i = n % workloads;
                let mut w = cluster.workload(i);
                w["spec"]["template"]["spec"]["containers"][0]["image"] = json!(format!("ghcr.io/example/web:1.4.{n}"));
                server.apply_as(&[w], "argocd-controller", "Apply");
            }
        };
        let stdin_closed = tokio::task::spawn_blocking(|| {
            let mut sink = Vec::new();
            let _ = std::io::stdin().read_to_end(&mut sink);
        });
        tokio::select! {
            _ = churn => {}
            _ = tokio::time::timeout(Duration::from_secs(600), stdin_closed) => {}
        }
        server.kill();
        return;
    }
    // Serve until stdin closes (the script holds it open), at most ten minutes; each line
    // `relist` read meanwhile makes every watch relist at once.
    let (lines, mut commands) = tokio::sync::mpsc::unbounded_channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::stdin().lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = tokio::time::sleep(Duration::from_secs(600));
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            () = &mut deadline => break,
            line = commands.recv() => match line.as_deref().map(str::trim) {
                None => break,
                Some("relist") => relist(&server, &cluster, &dir, workloads).await,
                Some(_) => {}
            },
        }
    }
    server.kill();
}

/// What a restarted kube-apiserver does to its clients' watches: every watch is silent for
/// longer than its timeout (a webhook's default `--context-stale-after` of 30 s renews each
/// every 15 s), the history is compacted meanwhile, and then every renewal gets `410 Gone` at
/// once: each kind relists. Writes `DIR/relisted` when the server answers again.
async fn relist(server: &TestApiServer, cluster: &BenchCluster, dir: &std::path::Path, workloads: usize) {
    const SILENT: Duration = Duration::from_secs(20);
    eprintln!("relist: freezing the server for {}s, then 410 Gone for every watch", SILENT.as_secs());
    server.freeze();
    if workloads > 0 {
        let mut w = cluster.workload(0);
        w["spec"]["template"]["spec"]["containers"][0]["image"] = json!("ghcr.io/example/web:relist");
        server.apply_as(&[w], "argocd-controller", "Apply");
    }
    server.compact();
    tokio::time::sleep(SILENT).await;
    server.thaw();
    std::fs::write(dir.join("relisted"), "").expect("writing the relisted file");
}

async fn read(kubeconfig: PathBuf, mode: &str) {
    let options = ClientOptions {
        kubeconfig: Some(kubeconfig),
        context: None,
        in_cluster: false,
        timeout: Duration::from_secs(60),
        environment: hpa_cluster::Environment::default(),
    };
    let started = Instant::now();
    let cluster = Cluster::connect(&options).await.unwrap_or_else(|e| panic!("{e}"));
    let objects = match mode {
        "inventory" => {
            let inventory = read_inventory(&cluster, &Scope::All).await.unwrap_or_else(|e| panic!("{e}"));
            for note in &inventory.notes {
                eprintln!("note: {note}");
            }
            inventory.hpas.len()
                + inventory.workloads.len()
                + inventory.pdbs.len()
                + inventory.vpas.len()
                + inventory.scaled_objects.len()
                + inventory.limit_ranges.len()
                + inventory.runtime_classes.len()
                + inventory.crds.len()
        }
        "lists" => {
            // The same lists, concurrently as read_inventory does, each page parsed and dropped.
            let kinds = [kinds::HPA, kinds::DEPLOYMENT, kinds::STATEFUL_SET, kinds::REPLICA_SET];
            let lists = kinds.iter().map(|kind| {
                cluster.list_each(kind, None, &[], kinds::PAGE_SIZE, |item: kinds::Listed<Value>| drop(item))
            });
            futures_util::future::join_all(lists)
                .await
                .into_iter()
                .map(|summary| summary.unwrap_or_else(|e| panic!("{e}")).items)
                .sum()
        }
        other => panic!("unknown mode {other}"),
    };
    let seconds = started.elapsed().as_secs_f64();
    println!("{mode} {seconds:.3} {objects} {}", peak_rss_kib());
}

/// `hpa-lint cluster -A --no-config -o json`, in-process as `main` runs it: the read, every
/// HPA admitted and checked against the inventory, the report rendered (and dropped).
fn lint(kubeconfig: &str) {
    use clap::Parser as _;
    let started = Instant::now();
    let args = hpa_lint::cli::Args::try_parse_from([
        "hpa-lint",
        "cluster",
        "-A",
        "--no-config",
        "--timeout",
        "60",
        "--fail-on",
        "never",
        "-o",
        "json",
        "--kubeconfig",
        kubeconfig,
    ])
    .unwrap_or_else(|e| panic!("{e}"));
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut stdin = std::io::empty();
    let mut out = hpa_lint::Output { stdin: &mut stdin, stdout: &mut stdout, stderr: &mut stderr, terminal: false };
    let status = hpa_lint::run(args, &mut out);
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(status.code(), 0, "{}", String::from_utf8_lossy(&stderr));
    let report: Value = serde_json::from_slice(&stdout).unwrap_or_else(|e| panic!("{e}"));
    let objects = report["summary"]["objects"].as_u64().unwrap_or(0);
    eprintln!("lint: {} diagnostics", report["diagnostics"].as_array().map_or(0, Vec::len));
    println!("lint {seconds:.3} {objects} {}", peak_rss_kib());
}

/// `VmHWM` of `/proc/self/status`: the peak resident set size, in KiB.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}
