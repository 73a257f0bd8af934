// The few contract functions the service reads (human-readable ABIs for ethers).
export const ERC165_ABI = ['function supportsInterface(bytes4 interfaceId) view returns (bool)'];
export const ERC721_ABI = [
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function isApprovedForAll(address owner, address operator) view returns (bool)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function owner() view returns (address)',
  'function totalSupply() view returns (uint256)',
];
export const ERC1155_ABI = [
  'function balanceOf(address account, uint256 id) view returns (uint256)',
  'function isApprovedForAll(address account, address operator) view returns (bool)',
];
export const ERC20_ABI = [
  'function balanceOf(address owner) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
];
export const ERC1271_ABI = ['function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)'];

/** ERC-165 interface ids (EIP-721, EIP-1155). */
export const INTERFACE_ERC721 = '0x80ac58cd';
export const INTERFACE_ERC1155 = '0xd9b67a26';
/** EIP-1271 magic value: bytes4(keccak256("isValidSignature(bytes32,bytes)")). */
export const ERC1271_MAGIC = '0x1626ba7e';

/** Where a token's metadata lives: ERC-721's metadata extension and ERC-1155's metadata URI. */
export const TOKEN_URI_ABI = ['function tokenURI(uint256 tokenId) view returns (string)', 'function uri(uint256 id) view returns (string)'];
/** ERC-7572: a collection's own metadata document (name, description, image, banner_image, external_link). */
export const CONTRACT_URI_ABI = ['function contractURI() view returns (string)'];
