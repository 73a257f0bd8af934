// A TCP port that was free a moment ago (the OS picks it), for servers that cannot listen on 0.
// One implementation: the cluster script's, which the cluster tests already use.
export { freePort } from '../../scripts/cluster/start-cluster.js';
