import type { ServiceProviderRow } from "./types.js"

/**
 * Service providers behind non-card payment methods (`PaymentTerminal`,
 * `DigitalWallet`, `CryptoWallet`, `MobileCommerce`). The `id` is the value
 * used in `PaymentMethodRow.providers` / `cryptoCurrencies` / `operators`.
 * `metadata` is served as is; `checkout` holds what the payment form needs.
 */
export const serviceProviders: ReadonlyArray<ServiceProviderRow> = [
  {
    id: "qiwi",
    brandName: "QIWI Wallet",
    category: "wallet",
    metadata: {
      checkout: {
        brandLogo: { banner: "/assets/qiwi.svg" },
        localization: { name: { ru_RU: "QIWI Кошелёк", en_US: "QIWI Wallet" } }
      }
    }
  },
  {
    id: "yandexmoney",
    brandName: "YooMoney",
    category: "wallet",
    metadata: {
      checkout: {
        brandLogo: { banner: "/assets/yoomoney.svg" },
        localization: { name: { ru_RU: "ЮMoney", en_US: "YooMoney" } }
      }
    }
  },
  {
    id: "webmoney",
    brandName: "WebMoney",
    category: "wallet",
    metadata: {
      checkout: {
        brandLogo: { banner: "/assets/webmoney.svg" },
        localization: { name: { ru_RU: "WebMoney", en_US: "WebMoney" } }
      }
    }
  },
  {
    id: "euroset",
    brandName: "Euroset",
    category: "terminal",
    metadata: {
      checkout: {
        brandLogo: { banner: "/assets/euroset.svg" },
        localization: { name: { ru_RU: "Евросеть", en_US: "Euroset" } }
      }
    }
  },
  {
    id: "bitcoin",
    brandName: "Bitcoin",
    category: "crypto",
    metadata: {
      checkout: {
        brandLogo: { banner: "/assets/bitcoin.svg" },
        localization: { name: { ru_RU: "Биткоин", en_US: "Bitcoin" } }
      },
      symbolicCode: "BTC"
    }
  },
  {
    id: "ethereum",
    brandName: "Ethereum",
    category: "crypto",
    metadata: {
      checkout: {
        brandLogo: { banner: "/assets/ethereum.svg" },
        localization: { name: { ru_RU: "Эфириум", en_US: "Ethereum" } }
      },
      symbolicCode: "ETH"
    }
  },
  {
    id: "mts",
    brandName: "MTS",
    category: "mobile",
    metadata: {
      checkout: {
        brandLogo: { banner: "/assets/mts.svg" },
        localization: { name: { ru_RU: "МТС", en_US: "MTS" } }
      }
    }
  }
]
