// Tells listeners (the metrics) how each order submission ended, without the submission code
// knowing about them: the service's createOrder/createOrders are wrapped here.
import type { Order } from '../generated/prisma/client.js';
import { OrderRejectedError } from './order-rejected.js';
import type { OrderSubmissionService } from './order-submission.js';

/** code is the first problem's code for a rejection, null when the order was stored */
export type SubmissionOutcomeListener = (outcome: 'accepted' | 'rejected', code: string | null) => void;

export function observeSubmissions(service: OrderSubmissionService) {
  const listeners = new Set<SubmissionOutcomeListener>();
  const tell = (r: Order | OrderRejectedError) => {
    for (const l of listeners) {
      if (r instanceof OrderRejectedError) l('rejected', r.code);
      else l('accepted', null);
    }
  };
  return {
    ...service,
    async createOrder(raw: unknown): Promise<Order> {
      try {
        const order = await service.createOrder(raw);
        tell(order);
        return order;
      } catch (err) {
        if (err instanceof OrderRejectedError) tell(err);
        throw err;
      }
    },
    async createOrders(raws: unknown[]): Promise<(Order | OrderRejectedError)[]> {
      const results = await service.createOrders(raws);
      results.forEach(tell);
      return results;
    },
    /** returns a function that removes the listener */
    onOutcome(listener: SubmissionOutcomeListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
