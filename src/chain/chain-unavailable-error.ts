// A chain read that could not be answered (the node unreachable or failing), as opposed to a
// contract that answered "no". Its own module so that code checking for it (order submission)
// does not load the chain reader, and with it ethers, in a service without RPC_URL.
export class ChainUnavailableError extends Error {}
