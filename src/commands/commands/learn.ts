import type { CommandDefinition } from "../types";

export const learnCommand: CommandDefinition = {
    name: "learn",
    description: "Learn (or relearn) this project and save its profile",
    usage: "/learn",
    maxPositional: 0,
    execute: (ctx) => ctx.learn(),
};
