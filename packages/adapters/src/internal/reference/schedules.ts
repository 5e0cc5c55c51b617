import type { ScheduleRow } from "./types.js"

/** Payout schedules referenced by `PaymentInstitutionRow.payoutSchedules`. */
export const schedules: ReadonlyArray<ScheduleRow> = [
  {
    scheduleID: 1,
    name: "Daily",
    description: "Payout every day for the funds settled during the previous day."
  },
  {
    scheduleID: 2,
    name: "Weekly (Mondays)",
    description: "Payout every Monday for the funds settled during the previous week (Monday to Sunday)."
  },
  {
    scheduleID: 3,
    name: "Monthly (1st)",
    description: "Payout on the 1st day of every month for the funds settled during the previous month."
  },
  {
    scheduleID: 4,
    name: "Twice a month (1st and 16th)",
    description: "Payout on the 1st and the 16th day of every month for the funds settled since the previous payout."
  }
]
