import type { CommandDefinition } from "../types";

export const skillsCommand: CommandDefinition = {
    name: "skills",
    description: "List the skills the model can load",
    usage: "/skills",
    maxPositional: 0,
    async execute(ctx) {
        const skills = ctx.skills();
        if (skills.length === 0) {
            return {
                message:
                    "No skills. Add SKILL.md folders to .north/skills/, .claude/skills/ or ~/.north/skills/.",
            };
        }
        return { message: skills.map((s) => `${s.name}: ${s.description}`).join("\n") };
    },
};
