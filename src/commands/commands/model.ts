import type { CommandDefinition } from "../types";

export const modelCommand: CommandDefinition = {
    name: "model",
    description: "Switch model (a picker without an argument)",
    usage: "/model [alias]",
    maxPositional: 1,
    async execute(ctx, args) {
        let name = args.positional[0];
        if (!name) {
            if (!ctx.interactive) return { message: `current model: ${ctx.currentModel().id}` };
            const current = ctx.currentModel().id;
            const choice = await ctx.pick(
                "Choose a model",
                ctx.models().map((m) => ({
                    id: m.alias,
                    label: `${m.alias}${m.id === current ? " (current)" : ""}`,
                    hint: `${m.display} · ${m.provider}`,
                }))
            );
            if (!choice) return { message: "Model unchanged." };
            name = choice;
        }
        return ctx.switchModel(name);
    },
};
