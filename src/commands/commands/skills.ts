import { type CommandDefinition, result, submit } from "../types";

export const skillsCommand: CommandDefinition = {
    name: "skills",
    description: "List the skills the model can load",
    usage: "/skills",
    maxPositional: 0,
    plan: () =>
        submit({ type: "skills" }, (skills) =>
            result(
                skills.length === 0
                    ? "No skills. Add SKILL.md folders to .north/skills/, .claude/skills/ or ~/.north/skills/."
                    : skills.map((s) => `${s.name}: ${s.description}`).join("\n")
            )
        ),
};
