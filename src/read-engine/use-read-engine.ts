// The read engine as a yoga plugin: every query execution goes through executeWithEngine
// (./read-engine.ts), which answers what it can render and hands the rest to yoga's executor.
import type { ExecutionArgs, ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { executeWithEngine } from './read-engine.js';

export function useReadEngine(): Plugin {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args: ExecutionArgs) => executeWithEngine(args, executeFn as (a: ExecutionArgs) => Promise<ExecutionResult>));
    },
  };
}
