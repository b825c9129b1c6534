import { type Language, languageOr } from '@warren/contract';

/**
 * The sandbox's hosted page in the buyer's language (createPayment puts `?lang=` on its
 * address): the texts and the page shell. The routes that serve it live with the webhooks.
 */
export type SandboxLanguage = Language;

const TEXTS = {
  en: {
    badge: 'Sandbox · no real money',
    pay: 'Pay',
    saveCard: 'Save card',
    saveNote: 'Nothing is charged now: the test card is kept for this plan’s renewals.',
    decline: 'Decline',
    payTitle: 'Pay {amount}',
    payment: 'Payment {id}',
    notFound: 'Unknown payment',
    notFoundTitle: 'Not found',
    done: 'This payment is {status}.',
    chooseOne: 'Choose Pay or Decline.',
    badRequest: 'Bad request',
    returning: 'Returning…',
    complete: 'Payment complete',
    declined: 'Payment declined',
    returningText: 'Returning to the merchant…',
    continue: 'Continue',
    savesCard:
      'The test card is kept for this plan’s automatic renewals; you can turn them off on your Subscription page.',
    status: { open: 'open', paid: 'paid', declined: 'declined', refunded: 'refunded' },
  },
  ru: {
    badge: 'Песочница · без реальных денег',
    pay: 'Оплатить',
    saveCard: 'Сохранить карту',
    saveNote: 'Сейчас ничего не списывается: тестовая карта сохраняется для продлений тарифа.',
    decline: 'Отклонить',
    payTitle: 'Оплата {amount}',
    payment: 'Платёж {id}',
    notFound: 'Платёж не найден',
    notFoundTitle: 'Не найдено',
    done: 'Этот платёж: {status}.',
    chooseOne: 'Выберите «Оплатить» или «Отклонить».',
    badRequest: 'Неверный запрос',
    returning: 'Возвращаемся…',
    complete: 'Оплата прошла',
    declined: 'Оплата отклонена',
    returningText: 'Возвращаемся в магазин…',
    continue: 'Продолжить',
    savesCard: 'Тестовая карта сохранится для автопродления тарифа; отключить его можно на странице «Подписка».',
    status: { open: 'ожидает оплаты', paid: 'оплачен', declined: 'отклонён', refunded: 'возвращён' },
  },
  zh: {
    badge: '沙盒 · 不涉及真实资金',
    pay: '支付',
    saveCard: '保存卡片',
    saveNote: '现在不会扣款：测试卡将保存用于此套餐的续订。',
    decline: '拒绝',
    payTitle: '支付 {amount}',
    payment: '付款 {id}',
    notFound: '未知付款',
    notFoundTitle: '未找到',
    done: '此付款状态：{status}。',
    chooseOne: '请选择支付或拒绝。',
    badRequest: '请求无效',
    returning: '正在返回…',
    complete: '付款成功',
    declined: '付款被拒绝',
    returningText: '正在返回商家…',
    continue: '继续',
    savesCard: '测试卡将保存用于本套餐的自动续订；您可以在“订阅”页面关闭自动续订。',
    status: { open: '待支付', paid: '已支付', declined: '已拒绝', refunded: '已退款' },
  },
} as const;

export type SandboxTexts = (typeof TEXTS)[SandboxLanguage];

/** `?lang=` of the page's address; anything else is English. */
export function sandboxLanguage(value: unknown): SandboxLanguage {
  return languageOr(value);
}

export function sandboxTexts(lang: SandboxLanguage): SandboxTexts {
  return TEXTS[lang];
}

/** `{name}` placeholders; values are escaped by the caller's page builder. */
export function fill(text: string, vars: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (m, k: string) => (Object.hasOwn(vars, k) ? vars[k]! : m));
}
