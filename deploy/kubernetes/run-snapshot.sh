#!/usr/bin/env sh
# Runs the four stages of one sharded snapshot in order with plain kubectl: apply a stage's Job
# (Indexed for the first three, one pod for `intermediaries`), wait for it to complete, go on.
# (Argo Workflows or a CI pipeline can run the same four steps; no scheduler of adsnap's own is
# involved.)
set -eu
manifest="${1:-$(dirname "$0")/snapshot-jobs.yaml}"
for stage in targets referrals sellers intermediaries; do
  kubectl apply -f "$manifest" -l "stage=$stage"
  job=$(kubectl get jobs -l "app=adsnap,stage=$stage" -o jsonpath='{.items[-1:].metadata.name}')
  kubectl wait --for=condition=complete --timeout=24h "job/$job"
done
