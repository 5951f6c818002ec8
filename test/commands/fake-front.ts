/**
 * A command front over a scripted host: each op is recorded as it is
 * submitted and answered by `replies` (an op without a reply fails the
 * command, as a host error would).
 */
import type { EngineOp, HostState, OpOf, OpReply, OpType } from "../../src/agent/protocol";
import type { CommandFront } from "../../src/commands/index";
import { BUILTIN_MODELS } from "../../src/providers/catalogue";
import { EMPTY_USAGE } from "../../src/providers/types";

export type Replies = { [T in OpType]?: (op: OpOf<T>) => OpReply<T> };

export function fakeFront(options: {
    replies?: Replies;
    /** The chat: answers pickers with `picks` (then null); absent: print mode. */
    picks?: Array<string | null>;
    state?: Partial<HostState>;
    editFile?: CommandFront["editFile"];
}) {
    const ops: EngineOp[] = [];
    const picked: string[] = [];
    const replies = options.replies ?? {};
    const model = BUILTIN_MODELS[0]!;
    const front: CommandFront & { state(): HostState } = {
        async submit(submitted) {
            const op = submitted as EngineOp;
            ops.push(op);
            const reply = (replies as Record<string, ((op: EngineOp) => unknown) | undefined>)[
                op.type
            ];
            if (!reply) throw new Error(`no reply for ${op.type}`);
            return reply(op) as never;
        },
        state: () => ({
            model,
            running: false,
            contextUsedTokens: 0,
            contextLimitTokens: model.contextLimitTokens,
            contextUsage: 0,
            totalCostUsd: 0,
            totalUsage: { ...EMPTY_USAGE },
            conversationId: "c1",
            mode: "agent",
            models: BUILTIN_MODELS,
            costs: { sessionUsd: 0, allTimeUsd: 0 },
            standing: { commands: false, edits: false },
            processes: { running: 0, notices: 0 },
            ...options.state,
        }),
        ...(options.picks
            ? {
                  choose: async (title: string, choices: Array<{ id: string }>) => {
                      picked.push(`${title}: ${choices.map((c) => c.id).join(" ")}`);
                      return options.picks!.shift() ?? null;
                  },
                  editFile: options.editFile,
              }
            : {}),
    };
    /** The ops submitted, one line each (`set_model sonnet-4-5`). */
    const calls = () =>
        ops.map((op) => {
            const { type, ...rest } = op;
            const values = Object.values(rest).filter((v) => typeof v !== "object");
            return [type, ...values.map(String)].join(" ");
        });
    return { front, ops, calls, picked };
}
