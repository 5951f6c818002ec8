import type { CommandDefinition } from "../types";

export const forkCommand: CommandDefinition = {
    name: "fork",
    description:
        "Continue in a copy of this conversation (up to just before prompt N); the original stays as it was",
    usage: "/fork [N]",
    maxPositional: 1,
    async execute(ctx, args) {
        if (!ctx.interactive) {
            return {
                message:
                    "/fork works in the chat; print mode continues in a copy with --fork-session and --resume ID or --continue",
                isError: true,
            };
        }
        const wanted = args.positional[0];
        if (wanted === undefined) return ctx.fork();
        const n = /^\d+$/.test(wanted) ? Number(wanted) : NaN;
        if (!(n >= 1)) {
            return {
                message: `/fork ${wanted}: give the number of a prompt (1 is the first; /rewind lists them)`,
                isError: true,
            };
        }
        return ctx.fork(n);
    },
};
