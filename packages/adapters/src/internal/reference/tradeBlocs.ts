import type { TradeBlocRow } from "./types.js"

/**
 * Trade blocs and economic unions. Membership is recorded on the country rows
 * (`CountryRow.tradeBlocs`, see countries.ts); only full member states are
 * listed there (no observers, associates, candidates or suspended members, and
 * no dependent territories with their own ISO 3166-1 code).
 */
export const tradeBlocs: ReadonlyArray<TradeBlocRow> = [
  {
    id: "EAEU",
    name: "Eurasian Economic Union",
    description:
      "Economic union of Armenia, Belarus, Kazakhstan, Kyrgyzstan and Russia with a single market for goods, services, capital and labour."
  },
  {
    id: "EU",
    name: "European Union",
    description: "Political and economic union of 27 member states with a single market and a customs union."
  },
  {
    id: "EEA",
    name: "European Economic Area",
    description:
      "Extends the EU single market to the EU member states and three EFTA states: Iceland, Liechtenstein and Norway."
  },
  {
    id: "EFTA",
    name: "European Free Trade Association",
    description: "Free trade area of Iceland, Liechtenstein, Norway and Switzerland."
  },
  {
    id: "CIS",
    name: "Commonwealth of Independent States",
    description:
      "Regional organisation of post-Soviet states. Full member states only; Turkmenistan (associate member) is not listed."
  },
  {
    id: "ASEAN",
    name: "Association of Southeast Asian Nations",
    description:
      "Political and economic union of eleven Southeast Asian states, including Timor-Leste (member since October 2025)."
  },
  {
    id: "MERCOSUR",
    name: "Southern Common Market (MERCOSUR)",
    description:
      "South American customs union of Argentina, Bolivia, Brazil, Paraguay and Uruguay. Venezuela (suspended) is not listed."
  },
  {
    id: "USMCA",
    name: "United States-Mexico-Canada Agreement",
    description: "Free trade agreement between Canada, Mexico and the United States (successor of NAFTA)."
  },
  {
    id: "GCC",
    name: "Gulf Cooperation Council",
    description:
      "Political and economic union of Bahrain, Kuwait, Oman, Qatar, Saudi Arabia and the United Arab Emirates."
  }
]
