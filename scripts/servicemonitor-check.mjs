// servicemonitor-check.mjs FILE: validates every ServiceMonitor in the YAML stream FILE
// (`kubectl kustomize deploy/kubernetes`) against the Prometheus operator's CRD schema,
// as @kubernetes-models/prometheus-operator compiles it (types, patterns, enums and
// required fields; like the API server, the schema leaves unknown fields to pruning).
// scripts/test-all.sh's deploy phase installs the two packages (versions pinned there).
import fs from "node:fs";
import yaml from "js-yaml";
import { ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor";

let n = 0;
for (const doc of yaml.loadAll(fs.readFileSync(process.argv[2], "utf8"))) {
  if (!doc || doc.kind !== "ServiceMonitor") continue;
  new ServiceMonitor(doc).validate(); // throws a ValidationError naming the field
  console.log(`deploy: ServiceMonitor ${doc.metadata.name} valid against the operator's CRD schema`);
  n++;
}
if (n === 0) {
  console.error("deploy: no ServiceMonitor in " + process.argv[2]);
  process.exit(1);
}
