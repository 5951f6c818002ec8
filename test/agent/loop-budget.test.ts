import { describe, expect, it } from "vitest";
import { budgetEnding } from "../../src/agent/loop";

type Deps = Parameters<typeof budgetEnding>[0];
const deps = (spent: number | null, maxBudgetUsd?: number): Deps =>
    ({ maxBudgetUsd, conversation: { totalCostUsd: spent } }) as unknown as Deps;

describe("budgetEnding (--max-budget-usd)", () => {
    it("never stops a session without a budget", () => {
        expect(budgetEnding(deps(1000), 50)).toBeNull();
    });

    it("lets a request through while spend plus the last request's cost stays within the budget", () => {
        expect(budgetEnding(deps(0, 1), 0)).toBeNull();
        expect(budgetEnding(deps(0.5, 1), 0.5)).toBeNull();
    });

    it("stops when another request like the last would pass the budget", () => {
        const ending = budgetEnding(deps(0.6, 1), 0.5);
        expect(ending?.subtype).toBe("error_max_budget_usd");
        expect(ending?.error).toContain("another request like the last ($0.5000)");
    });

    it("stops once the spend reaches the budget, e.g. a resumed conversation", () => {
        const ending = budgetEnding(deps(1, 1), 0);
        expect(ending?.subtype).toBe("error_max_budget_usd");
        expect(ending?.error).toContain("has cost $1.0000, reaching the budget of $1.0000");
    });

    it("stops when the spend is unknown (a model without a price answered)", () => {
        expect(budgetEnding(deps(null, 1), 0)?.subtype).toBe("error_max_budget_usd");
        expect(budgetEnding(deps(0.1, 1), null)?.error).toContain("without a price");
    });
});
