// A refused order submission: every problem found, as values with codes from the one closed
// set (src/domain/order-problems.ts). GraphQL shows it as the OrderRejected type; REST as a
// 400 envelope whose message is the first problem's and whose errors[] lists them all.
import type { OrderProblem } from '../domain/order-problems.js';

export class OrderRejectedError extends Error {
  readonly code: string;
  constructor(
    readonly problems: OrderProblem[],
    readonly hash: string | null = null,
  ) {
    super(problems[0]?.message ?? 'Order refused');
    this.name = 'OrderRejectedError';
    this.code = problems[0]?.code ?? 'ORDER_REJECTED';
  }
}
