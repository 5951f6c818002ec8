/** The chat's palette for Ink components; run-app provides the one the settings chose. */
import { createContext, useContext } from "react";
import { DARK_THEME, type Theme } from "./theme";

export const ThemeContext = createContext<Theme>(DARK_THEME);

export function useTheme(): Theme {
    return useContext(ThemeContext);
}
