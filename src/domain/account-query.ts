// What an account's pages ask for (Account.offersReceived, Account.holdings): keyset pages of at
// most 150 rows, forward or backward (./page-args.ts). Parsed once here for the resolvers and the
// read engine, so both refuse and accept the same inputs.
import { isBytes32Hex } from './bytes32-hex.js';
import { pageArgsOf, parsePageArgs, type PageArgs, type PageQuery } from './page-args.js';

export const MAX_ACCOUNT_PAGE = 150;
export const DEFAULT_ACCOUNT_PAGE = 20;

const rules = (isCursor: (cursor: string) => boolean) => ({ max: MAX_ACCOUNT_PAGE, defaultSize: DEFAULT_ACCOUNT_PAGE, isCursor });

/** The page's size, direction and cursors; `isCursor` says whether a cursor has the page's form. */
export const parseAccountPage = (args: PageArgs, isCursor: (cursor: string) => boolean) => parsePageArgs(args, rules(isCursor));

/** parseAccountPage, throwing the problems as one BAD_REQUEST (INVALID_CURSOR when that is all). */
export const accountPageOf = (args: PageArgs, isCursor: (cursor: string) => boolean): PageQuery => pageArgsOf(args, rules(isCursor));

/** An offer cursor: the order's hash as the API returns it. */
export const isOrderHashCursor = (cursor: string) => isBytes32Hex(cursor, { lowercase: true });
