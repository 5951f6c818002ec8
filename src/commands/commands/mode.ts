import { MODES, type Mode } from "../../agent/events";
import type { CommandDefinition } from "../types";

export const modeCommand: CommandDefinition = {
    name: "mode",
    description: "Set the mode of the next requests: ask (read-only), agent, or plan",
    usage: "/mode [ask|agent|plan]",
    maxPositional: 1,
    async execute(ctx, args) {
        let value = args.positional[0];
        if (!value) {
            if (!ctx.interactive)
                return { message: `/mode needs one of ${MODES.join(", ")}`, isError: true };
            const choice = await ctx.pick(
                "Choose a mode",
                MODES.map((m) => ({ id: m, label: m }))
            );
            if (!choice) return { message: "Mode unchanged." };
            value = choice;
        }
        if (!MODES.includes(value as Mode)) {
            return { message: `unknown mode "${value}": use ${MODES.join(", ")}`, isError: true };
        }
        ctx.setMode(value as Mode);
        return { message: `Mode: ${value}.` };
    },
};
