import type { CommandDefinition } from "../types";

export const learnCommand: CommandDefinition = {
    name: "learn",
    description: "Learn (or relearn) this project and save its profile; /learn stop cancels",
    usage: "/learn [stop]",
    maxPositional: 1,
    execute(ctx, args) {
        const action = args.positional[0];
        if (action === undefined) return ctx.learn("start");
        if (action === "stop") return ctx.learn("stop");
        return Promise.resolve({
            message: `unknown /learn argument "${action}"; use /learn or /learn stop`,
            isError: true,
        });
    },
};
