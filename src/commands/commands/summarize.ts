import type { CommandDefinition } from "../types";

export const summarizeCommand: CommandDefinition = {
    name: "summarize",
    description: "Replace older messages with a summary",
    usage: "/summarize [--keep-last N]",
    maxPositional: 0,
    flags: { "keep-last": { short: "k", takesValue: true } },
    async execute(ctx, args) {
        const raw = args.flags["keep-last"];
        let keepLast: number | undefined;
        if (raw !== undefined) {
            keepLast = Number(raw);
            if (raw === true || !Number.isInteger(keepLast) || keepLast < 0) {
                return {
                    message: `--keep-last needs a whole number (got "${String(raw)}")`,
                    isError: true,
                };
            }
        }
        return ctx.summarize(keepLast);
    },
};
