// Addresses of the deterministic demo marketplace (src/demo/seed-demo.ts), used in examples.
export const DEMO_COLLECTION = '0xC9573CD9E8D6601AF3EcA06CEC3d7d4378fBAE56';
export const DEMO_SIGNER = '0x596250058BA0Ac6856fE49dfE6BEcBEF41Dcb49B';
