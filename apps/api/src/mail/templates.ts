import type { Language } from '@warren/contract';
import { escapeHtml } from '../lib/html.js';
import { planName } from './plan-names.js';

/**
 * Transactional emails, HTML + text, in the user's language, branded with the product name.
 * Every interpolated value is escaped in the HTML part.
 */
export type MailKind =
  | 'verify'
  | 'reset'
  | 'passwordChanged'
  | 'accountDeleted'
  | 'onetime'
  | 'receipt'
  | 'grant'
  | 'renewalReminder'
  | 'renewalFailed'
  | 'planEnded'
  | 'wgKeyExpiring'
  | SecurityMailKind;
/**
 * Security notices (issue 20): what changed on the account, when, and what to do if it was not
 * the owner (the "not you?" links). They go whatever the marketing setting: like the billing
 * mails they are about the account itself and carry no unsubscribe link. They carry no codes and
 * no tokens, only links to pages.
 */
export type SecurityMailKind =
  'twoFactorOn' | 'twoFactorOff' | 'recoveryCodeUsed' | 'newSignIn' | 'refund' | 'passkeyAdded' | 'passkeyRemoved';
type Kind = MailKind;
// Billing mails (receipt, grant, renewal reminder, renewal failed, plan ended) are transactional: they
// carry no marketing unsubscribe link and go whatever the member's news setting; each links to
// the dashboard's /subscription page (plan, auto-renew, payment history and receipt PDFs).

interface Copy {
  subject: string;
  heading: string;
  body: string;
  button?: string;
  footer: string;
}

const SECURITY_FOOTER: Record<Language, string> = {
  en: 'This is a security notice: it is sent whatever your email settings, so that you always know what happens to your account.',
  ru: 'Это уведомление о безопасности: оно приходит независимо от настроек рассылки, чтобы вы всегда знали, что происходит с вашим аккаунтом.',
  zh: '这是一封安全通知：无论您的邮件设置如何都会发送，以便您随时了解账户的变化。',
};

/** The "not you?" block of the security notices: each line's text, then its link. */
const NOT_YOU: Record<Language, { heading: string; reset: string; profile: string; support: string }> = {
  en: {
    heading: 'Was this not you?',
    reset: 'Reset your password (this also signs out every session):',
    profile: 'Check your sessions and two-factor sign-in on your Profile page:',
    support: 'Contact support:',
  },
  ru: {
    heading: 'Если это были не вы',
    reset: 'Сбросьте пароль (это также завершит все сеансы):',
    profile: 'Проверьте сеансы и двухфакторный вход на странице «Профиль»:',
    support: 'Напишите в поддержку:',
  },
  zh: {
    heading: '如果不是您本人操作',
    reset: '重置密码（同时会退出所有会话）：',
    profile: '在“个人资料”页面检查会话和两步验证：',
    support: '联系客服：',
  },
};

/** Where the "not you?" lines point: built by the sender from the same origin as its other links. */
export interface NotYouLinks {
  reset: string;
  profile: string;
  support: string;
}

/** The three "not you?" links for an origin (the one the sender's other links use) and a brand's help centre. */
export const notYouLinks = (origin: string, supportUrl: string): NotYouLinks => ({
  reset: `${origin}/forgot-pass`,
  profile: `${origin}/profile`,
  support: supportUrl,
});

const COPY: Record<Language, Record<Kind, Copy>> = {
  en: {
    verify: {
      subject: 'Confirm your email for {product}',
      heading: 'Welcome to {product}',
      body: 'Confirm your email address to start using {product}. The link is valid for 48 hours.',
      button: 'Confirm email',
      footer: 'If you did not create an account, ignore this email.',
    },
    reset: {
      subject: 'Reset your {product} password',
      heading: 'Reset your password',
      body: 'Someone asked to reset the password of your {product} account. The link is valid for 1 hour and works once.',
      button: 'Choose a new password',
      footer: 'If it was not you, ignore this email: your password stays the same.',
    },
    passwordChanged: {
      subject: 'Your {product} password was changed',
      heading: 'Password changed',
      body: 'The password of your {product} account was changed and every other session was signed out.',
      footer: 'If it was not you, reset your password right away.',
    },
    accountDeleted: {
      subject: 'Your {product} account was deleted',
      heading: 'Account deleted',
      body: 'Your {product} account and its personal data were erased. We are sorry to see you go.',
      footer: 'This is the last email we send to this address.',
    },
    onetime: {
      subject: 'Your {product} sign-in link',
      heading: 'Sign in to {product}',
      body: 'Use this link to sign in. It is valid for 15 minutes and works once.',
      button: 'Sign in',
      footer: 'If you did not ask for it, ignore this email.',
    },
    receipt: {
      subject: 'Your {product} receipt',
      heading: 'Thank you for your payment',
      body: 'Plan: {plan}. Amount: {amount}. Paid until: {until}. Payment: {payment}. You can ask for a refund within 7 days. The receipt (PDF) and your payment history are on your Subscription page.{billedTo}',
      button: 'Open Subscription',
      footer: 'Keep this email for your records.',
    },
    grant: {
      subject: 'Time was added to your {product} plan',
      heading: 'Our support team extended your plan',
      body: 'Your {plan} plan now runs until {until}. This was added by our support team: nothing was charged and there is no receipt. Your plan and payment history are on your Subscription page.',
      button: 'Open Subscription',
      footer: 'You get this email because your plan changed.',
    },
    renewalReminder: {
      subject: 'Your {product} plan renews on {date}',
      heading: 'Your plan renews soon',
      body: 'Your {plan} plan renews automatically on {date}: we will charge {amount} to {method}. To stop it, turn off auto-renew on your Subscription page before then; your plan stays until {until}.',
      button: 'Manage subscription',
      footer: 'You get this email because auto-renew is on for your plan.',
    },
    renewalFailed: {
      subject: 'We could not renew your {product} plan',
      heading: 'Your renewal did not go through',
      body: 'We tried to charge {amount} to {method} for your {plan} plan, and the payment was refused: {error} We will try again on {retry}. You can also pay by hand on your Subscription page; your plan runs until {until}.',
      button: 'Pay now',
      footer: 'Your plan ends on {until} if no payment goes through.',
    },
    planEnded: {
      subject: 'Your {product} plan has ended',
      heading: 'Your plan has ended',
      body: 'Your {plan} plan ended on {until} and was not renewed, so your {product} access has stopped. You can buy a new plan any time from your Subscription page.',
      button: 'Renew my plan',
      footer: 'Thank you for using {product}.',
    },
    wgKeyExpiring: {
      subject: 'The WireGuard key of “{device}” expires soon',
      heading: 'A WireGuard key expires soon',
      body: 'The key of your WireGuard device “{device}” expires on {time}, at the end of the key lifetime you chose. After that the device cannot connect until you rotate its key: open the WireGuard page in your browser, choose “Rotate key” for the device and load the new configuration into its app. The device keeps its name and addresses.',
      button: 'Rotate the key',
      footer:
        'You get this email because you set a key lifetime for this device. You can change it to “never” on the WireGuard page.',
    },
    twoFactorOn: {
      subject: 'Two-factor sign-in is on for your {product} account',
      heading: 'Two-factor sign-in turned on',
      body: 'Two-factor sign-in was turned on for your {product} account. When: {time}. From now on, signing in asks for a code from your authenticator app. Keep your recovery codes somewhere safe.',
      footer: SECURITY_FOOTER.en,
    },
    passkeyAdded: {
      subject: 'A passkey was added to your {product} account',
      heading: 'A passkey was added',
      body: 'A passkey named “{name}” was added to your {product} account. When: {time}. Browser: {browser}. It can sign in to your account without a password.',
      footer: SECURITY_FOOTER.en,
    },
    passkeyRemoved: {
      subject: 'A passkey was removed from your {product} account',
      heading: 'A passkey was removed',
      body: 'The passkey named “{name}” was removed from your {product} account and can no longer sign in. When: {time}. Browser: {browser}.',
      footer: SECURITY_FOOTER.en,
    },
    twoFactorOff: {
      subject: 'Two-factor sign-in is off for your {product} account',
      heading: 'Two-factor sign-in turned off',
      body: 'Two-factor sign-in was turned off for your {product} account, and its recovery codes no longer work. When: {time}. Signing in now needs only your password.',
      footer: SECURITY_FOOTER.en,
    },
    recoveryCodeUsed: {
      subject: 'A recovery code was used to sign in to {product}',
      heading: 'A recovery code was used',
      body: 'Someone signed in to your {product} account with one of its recovery codes. When: {time}. Browser: {browser}. Approximate place: {place}. Each code works once; recovery codes left: {left}. If you lost your authenticator, turn two-factor sign-in off and on again on your Profile page to get new codes.',
      footer: SECURITY_FOOTER.en,
    },
    newSignIn: {
      subject: 'New sign-in to your {product} account',
      heading: 'A sign-in from a new browser',
      body: 'Your {product} account was signed in to from a browser it had not been used in before. When: {time}. Browser: {browser}. Approximate place: {place}. If it was you, there is nothing to do.',
      footer: SECURITY_FOOTER.en,
    },
    refund: {
      subject: 'A refund was made on your {product} account',
      heading: 'Refund made',
      body: 'Payment {payment} ({plan}, {amount}) was refunded. When: {time}. The money goes back the way you paid; your bank may take a few days to show it. Your plan and payment history are on your Subscription page.',
      button: 'Open Subscription',
      footer: SECURITY_FOOTER.en,
    },
  },
  ru: {
    verify: {
      subject: 'Подтвердите email для {product}',
      heading: 'Добро пожаловать в {product}',
      body: 'Подтвердите адрес электронной почты, чтобы начать пользоваться {product}. Ссылка действует 48 часов.',
      button: 'Подтвердить email',
      footer: 'Если вы не создавали аккаунт, просто проигнорируйте это письмо.',
    },
    reset: {
      subject: 'Сброс пароля {product}',
      heading: 'Сброс пароля',
      body: 'Кто-то запросил сброс пароля вашего аккаунта {product}. Ссылка действует 1 час и срабатывает один раз.',
      button: 'Задать новый пароль',
      footer: 'Если это были не вы, проигнорируйте письмо: пароль останется прежним.',
    },
    passwordChanged: {
      subject: 'Пароль {product} изменён',
      heading: 'Пароль изменён',
      body: 'Пароль вашего аккаунта {product} изменён, все остальные сеансы завершены.',
      footer: 'Если это были не вы, немедленно сбросьте пароль.',
    },
    accountDeleted: {
      subject: 'Ваш аккаунт {product} удалён',
      heading: 'Аккаунт удалён',
      body: 'Ваш аккаунт {product} и персональные данные удалены. Жаль, что вы уходите.',
      footer: 'Это последнее письмо, которое мы отправляем на этот адрес.',
    },
    onetime: {
      subject: 'Ссылка для входа в {product}',
      heading: 'Вход в {product}',
      body: 'Войдите по этой ссылке. Она действует 15 минут и срабатывает один раз.',
      button: 'Войти',
      footer: 'Если вы её не запрашивали, проигнорируйте письмо.',
    },
    receipt: {
      subject: 'Чек {product}',
      heading: 'Спасибо за оплату',
      body: 'Тариф: {plan}. Сумма: {amount}. Оплачено до: {until}. Платёж: {payment}. Вернуть деньги можно в течение 7 дней. Чек (PDF) и история платежей — на странице «Подписка».{billedTo}',
      button: 'Открыть «Подписку»',
      footer: 'Сохраните это письмо.',
    },
    grant: {
      subject: 'Тариф {product} продлён',
      heading: 'Служба поддержки продлила ваш тариф',
      body: 'Тариф {plan} теперь действует до {until}. Его продлила служба поддержки: деньги не списывались, чека нет. Тариф и история платежей — на странице «Подписка».',
      button: 'Открыть «Подписку»',
      footer: 'Вы получили это письмо, потому что изменился ваш тариф.',
    },
    renewalReminder: {
      subject: 'Тариф {product} продлится {date}',
      heading: 'Скоро автопродление',
      body: 'Тариф {plan} продлится автоматически {date}: мы спишем {amount} ({method}). Чтобы этого не случилось, отключите автопродление на странице «Подписка» до этой даты; тариф действует до {until}.',
      button: 'Управлять подпиской',
      footer: 'Вы получили это письмо, потому что для тарифа включено автопродление.',
    },
    renewalFailed: {
      subject: 'Не удалось продлить тариф {product}',
      heading: 'Продление не прошло',
      body: 'Мы попытались списать {amount} ({method}) за тариф {plan}, но платёж отклонён: {error} Следующая попытка — {retry}. Можно оплатить вручную на странице «Подписка»; тариф действует до {until}.',
      button: 'Оплатить',
      footer: 'Если оплата не пройдёт, тариф закончится {until}.',
    },
    planEnded: {
      subject: 'Тариф {product} закончился',
      heading: 'Тариф закончился',
      body: 'Тариф {plan} закончился {until} и не был продлён, поэтому доступ к {product} прекращён. Новый тариф можно купить в любое время на странице «Подписка».',
      button: 'Продлить тариф',
      footer: 'Спасибо, что пользуетесь {product}.',
    },
    wgKeyExpiring: {
      subject: 'Ключ WireGuard устройства «{device}» скоро истечёт',
      heading: 'Скоро истекает ключ WireGuard',
      body: 'Ключ вашего устройства WireGuard «{device}» истекает {time}: так задан срок действия ключа. После этого устройство не сможет подключиться, пока вы не смените ключ: откройте в браузере страницу WireGuard, выберите для устройства «Сменить ключ» и загрузите новую конфигурацию в приложение. Название и адреса устройства сохранятся.',
      button: 'Сменить ключ',
      footer:
        'Вы получили это письмо, потому что задали срок действия ключа для этого устройства. Его можно сменить на «бессрочно» на странице WireGuard.',
    },
    twoFactorOn: {
      subject: 'Двухфакторный вход в {product} включён',
      heading: 'Двухфакторный вход включён',
      body: 'Для вашего аккаунта {product} включён двухфакторный вход. Время: {time}. Теперь при входе нужен код из приложения-аутентификатора. Храните резервные коды в надёжном месте.',
      footer: SECURITY_FOOTER.ru,
    },
    passkeyAdded: {
      subject: 'К аккаунту {product} добавлен ключ доступа',
      heading: 'Добавлен ключ доступа',
      body: 'К вашему аккаунту {product} добавлен ключ доступа «{name}». Время: {time}. Браузер: {browser}. С ним можно войти в аккаунт без пароля.',
      footer: SECURITY_FOOTER.ru,
    },
    passkeyRemoved: {
      subject: 'Из аккаунта {product} удалён ключ доступа',
      heading: 'Удалён ключ доступа',
      body: 'Ключ доступа «{name}» удалён из вашего аккаунта {product}, войти с ним больше нельзя. Время: {time}. Браузер: {browser}.',
      footer: SECURITY_FOOTER.ru,
    },
    twoFactorOff: {
      subject: 'Двухфакторный вход в {product} отключён',
      heading: 'Двухфакторный вход отключён',
      body: 'Для вашего аккаунта {product} отключён двухфакторный вход, резервные коды больше не действуют. Время: {time}. Теперь для входа достаточно пароля.',
      footer: SECURITY_FOOTER.ru,
    },
    recoveryCodeUsed: {
      subject: 'Вход в {product} по резервному коду',
      heading: 'Использован резервный код',
      body: 'В ваш аккаунт {product} вошли с одним из резервных кодов. Время: {time}. Браузер: {browser}. Примерное место: {place}. Каждый код действует один раз; осталось кодов: {left}. Если вы потеряли аутентификатор, отключите и снова включите двухфакторный вход на странице «Профиль», чтобы получить новые коды.',
      footer: SECURITY_FOOTER.ru,
    },
    newSignIn: {
      subject: 'Новый вход в аккаунт {product}',
      heading: 'Вход из нового браузера',
      body: 'В ваш аккаунт {product} вошли из браузера, из которого в него раньше не входили. Время: {time}. Браузер: {browser}. Примерное место: {place}. Если это были вы, ничего делать не нужно.',
      footer: SECURITY_FOOTER.ru,
    },
    refund: {
      subject: 'Возврат средств по аккаунту {product}',
      heading: 'Деньги возвращены',
      body: 'Платёж {payment} ({plan}, {amount}) возвращён. Время: {time}. Деньги вернутся тем же способом, которым вы платили; банку может понадобиться несколько дней. Тариф и история платежей — на странице «Подписка».',
      button: 'Открыть «Подписку»',
      footer: SECURITY_FOOTER.ru,
    },
  },
  zh: {
    verify: {
      subject: '确认您的 {product} 邮箱',
      heading: '欢迎使用 {product}',
      body: '请确认您的邮箱地址以开始使用 {product}。链接 48 小时内有效。',
      button: '确认邮箱',
      footer: '如果您没有注册账户，请忽略此邮件。',
    },
    reset: {
      subject: '重置您的 {product} 密码',
      heading: '重置密码',
      body: '有人请求重置您的 {product} 账户密码。链接 1 小时内有效，仅可使用一次。',
      button: '设置新密码',
      footer: '如果不是您本人操作，请忽略此邮件，您的密码不会改变。',
    },
    passwordChanged: {
      subject: '您的 {product} 密码已更改',
      heading: '密码已更改',
      body: '您的 {product} 账户密码已更改，其他所有会话均已退出。',
      footer: '如果不是您本人操作，请立即重置密码。',
    },
    accountDeleted: {
      subject: '您的 {product} 账户已删除',
      heading: '账户已删除',
      body: '您的 {product} 账户及个人数据已被清除。很遗憾看到您离开。',
      footer: '这是我们发往此地址的最后一封邮件。',
    },
    onetime: {
      subject: '您的 {product} 登录链接',
      heading: '登录 {product}',
      body: '使用此链接登录。链接 15 分钟内有效，仅可使用一次。',
      button: '登录',
      footer: '如果您没有请求此链接，请忽略此邮件。',
    },
    receipt: {
      subject: '您的 {product} 收据',
      heading: '感谢您的付款',
      body: '套餐：{plan}。金额：{amount}。有效期至：{until}。付款编号：{payment}。7 天内可申请退款。收据（PDF）和付款记录见“订阅”页面。{billedTo}',
      button: '打开“订阅”',
      footer: '请保留此邮件以备查询。',
    },
    grant: {
      subject: '您的 {product} 套餐已延长',
      heading: '客服已为您延长套餐',
      body: '您的 {plan} 套餐现有效期至 {until}。这是客服为您添加的时间：未扣任何费用，因此没有收据。套餐和付款记录见“订阅”页面。',
      button: '打开“订阅”',
      footer: '您收到此邮件，是因为您的套餐发生了变化。',
    },
    renewalReminder: {
      subject: '您的 {product} 套餐将于 {date} 续订',
      heading: '套餐即将自动续订',
      body: '您的 {plan} 套餐将于 {date} 自动续订：我们将从 {method} 扣款 {amount}。如不想续订，请在此之前在“订阅”页面关闭自动续订；套餐有效期至 {until}。',
      button: '管理订阅',
      footer: '您收到此邮件，是因为您的套餐开启了自动续订。',
    },
    renewalFailed: {
      subject: '您的 {product} 套餐续订失败',
      heading: '续订付款未成功',
      body: '我们尝试从 {method} 扣款 {amount} 续订 {plan} 套餐，但付款被拒绝：{error} 我们将于 {retry} 再次尝试。您也可以在“订阅”页面手动付款；套餐有效期至 {until}。',
      button: '立即付款',
      footer: '如果付款一直未成功，套餐将于 {until} 结束。',
    },
    planEnded: {
      subject: '您的 {product} 套餐已结束',
      heading: '套餐已结束',
      body: '您的 {plan} 套餐已于 {until} 结束且未续订，{product} 访问已停止。您可以随时在“订阅”页面购买新套餐。',
      button: '续订套餐',
      footer: '感谢您使用 {product}。',
    },
    wgKeyExpiring: {
      subject: '设备“{device}”的 WireGuard 密钥即将过期',
      heading: 'WireGuard 密钥即将过期',
      body: '按照您设置的密钥有效期，您的 WireGuard 设备“{device}”的密钥将于 {time} 过期。过期后该设备将无法连接，直到您更换密钥：在浏览器中打开 WireGuard 页面，为该设备选择“更换密钥”，并将新配置导入其应用。设备的名称和地址保持不变。',
      button: '更换密钥',
      footer: '您收到此邮件，是因为您为此设备设置了密钥有效期。您可以在 WireGuard 页面将其改为“永不过期”。',
    },
    twoFactorOn: {
      subject: '您的 {product} 账户已开启两步验证',
      heading: '两步验证已开启',
      body: '您的 {product} 账户已开启两步验证。时间：{time}。今后登录时需要输入身份验证器应用中的验证码。请妥善保管您的恢复码。',
      footer: SECURITY_FOOTER.zh,
    },
    passkeyAdded: {
      subject: '您的 {product} 账户已添加通行密钥',
      heading: '已添加通行密钥',
      body: '您的 {product} 账户已添加名为“{name}”的通行密钥。时间：{time}。浏览器：{browser}。它无需密码即可登录您的账户。',
      footer: SECURITY_FOOTER.zh,
    },
    passkeyRemoved: {
      subject: '您的 {product} 账户已移除通行密钥',
      heading: '已移除通行密钥',
      body: '名为“{name}”的通行密钥已从您的 {product} 账户中移除，无法再用于登录。时间：{time}。浏览器：{browser}。',
      footer: SECURITY_FOOTER.zh,
    },
    twoFactorOff: {
      subject: '您的 {product} 账户已关闭两步验证',
      heading: '两步验证已关闭',
      body: '您的 {product} 账户已关闭两步验证，恢复码已失效。时间：{time}。现在登录只需密码。',
      footer: SECURITY_FOOTER.zh,
    },
    recoveryCodeUsed: {
      subject: '有人使用恢复码登录了您的 {product} 账户',
      heading: '恢复码已被使用',
      body: '有人使用一个恢复码登录了您的 {product} 账户。时间：{time}。浏览器：{browser}。大致位置：{place}。每个恢复码只能使用一次；剩余恢复码：{left} 个。如果您丢失了身份验证器，请在“个人资料”页面关闭并重新开启两步验证，以获取新的恢复码。',
      footer: SECURITY_FOOTER.zh,
    },
    newSignIn: {
      subject: '您的 {product} 账户有新的登录',
      heading: '来自新浏览器的登录',
      body: '有人从一个此前未登录过的浏览器登录了您的 {product} 账户。时间：{time}。浏览器：{browser}。大致位置：{place}。如果是您本人，无需任何操作。',
      footer: SECURITY_FOOTER.zh,
    },
    refund: {
      subject: '您的 {product} 账户已退款',
      heading: '退款已完成',
      body: '付款 {payment}（{plan}，{amount}）已退款。时间：{time}。款项将原路退回，银行可能需要几天才能显示。套餐和付款记录见“订阅”页面。',
      button: '打开“订阅”',
      footer: SECURITY_FOOTER.zh,
    },
  },
};

export function renderMail(
  kind: Kind,
  opts: { language: Language; productName: string; link?: string; vars?: Record<string, string>; notYou?: NotYouLinks },
): { subject: string; text: string; html: string; kind: Kind } {
  const copy = COPY[opts.language][kind];
  // {plan} in the mail's language when the sender names the plan's key ({planKey}); the name it passed otherwise.
  const vars = opts.vars?.planKey
    ? { ...opts.vars, plan: planName(opts.vars.planKey, opts.vars.plan ?? '', opts.language) }
    : opts.vars;
  const fill = (s: string) =>
    s.replace(/\{(\w+)\}/g, (whole, key: string) => (key === 'product' ? opts.productName : (vars?.[key] ?? whole)));
  const subject = fill(copy.subject);
  const heading = fill(copy.heading);
  const body = fill(copy.body);
  const footer = fill(copy.footer);
  const notYou = opts.notYou && NOT_YOU[opts.language];
  const notYouLines = notYou
    ? (['reset', 'profile', 'support'] as const).map((k) => ({ label: notYou[k], url: opts.notYou![k] }))
    : [];
  const text = [
    heading,
    '',
    body,
    ...(opts.link ? ['', opts.link] : []),
    ...(notYou ? ['', notYou.heading, ...notYouLines.map((l) => `- ${l.label} ${l.url}`)] : []),
    '',
    footer,
    '',
    `— ${opts.productName}`,
  ].join('\n');
  const button =
    opts.link && copy.button
      ? `<p style="margin:28px 0"><a href="${escapeHtml(opts.link)}" style="background:#3b5bdb;color:#fff;padding:12px 22px;border-radius:8px;text-decoration:none;font-weight:600">${escapeHtml(copy.button)}</a></p>
<p style="color:#555;font-size:13px;word-break:break-all">${escapeHtml(opts.link)}</p>`
      : '';
  const notYouHtml = notYou
    ? `
<h2 style="font-size:16px;color:#111;margin:28px 0 8px">${escapeHtml(notYou.heading)}</h2>
<ul style="font-size:14px;line-height:1.6;color:#333;padding-left:20px;margin:0">${notYouLines
        .map(
          (l) =>
            `<li>${escapeHtml(l.label)} <a href="${escapeHtml(l.url)}" style="color:#3b5bdb;word-break:break-all">${escapeHtml(l.url)}</a></li>`,
        )
        .join('')}</ul>`
    : '';
  const html = `<!doctype html><html lang="${opts.language}"><body style="margin:0;background:#f4f6fb;font-family:Inter,Arial,sans-serif">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:32px 12px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;background:#fff;border-radius:12px;padding:32px">
<tr><td><p style="font-size:20px;font-weight:700;color:#1c2a5e;margin:0 0 24px">${escapeHtml(opts.productName)}</p>
<h1 style="font-size:22px;color:#111;margin:0 0 12px">${escapeHtml(heading)}</h1>
<p style="font-size:15px;line-height:1.6;color:#333">${escapeHtml(body)}</p>${button}${notYouHtml}
<p style="font-size:13px;color:#777;margin-top:28px">${escapeHtml(footer)}</p></td></tr></table></td></tr></table></body></html>`;
  return { subject, text, html, kind };
}

/** The renewal-failed mail's {retry} when no attempt is left. */
/**
 * The receipt's {amount} for a plan switch (issue 23): what was charged, and how: the new plan's
 * price less the credit for the unused part of the plan it replaced.
 */
export function switchAmountLabel(
  language: Language,
  v: { amount: string; price: string; credit: string; plan: string; from: string },
): string {
  if (language === 'ru')
    return `${v.amount} (${v.plan}: ${v.price}, минус зачёт ${v.credit} за неиспользованную часть тарифа ${v.from})`;
  if (language === 'zh') return `${v.amount}（${v.plan}：${v.price}，减去 ${v.from} 未使用部分的抵扣 ${v.credit}）`;
  return `${v.amount} (${v.plan}: ${v.price}, less ${v.credit} credit for the unused part of ${v.from})`;
}

/** The receipt mail's billing address line (issue 23): empty when the member keeps none. */
export function billedToLabel(
  language: Language,
  a: { name: string; lines: string[]; country: string; vatNumber: string } | undefined,
): string {
  if (!a) return '';
  const address = [a.name, ...a.lines, a.country].filter(Boolean).join(', ');
  const vat = a.vatNumber
    ? language === 'ru'
      ? ` НДС: ${a.vatNumber}.`
      : language === 'zh'
        ? ` 税号：${a.vatNumber}。`
        : ` VAT: ${a.vatNumber}.`
    : '';
  if (language === 'ru') return ` Покупатель: ${address}.${vat}`;
  if (language === 'zh') return ` 购买方：${address}。${vat}`;
  return ` Billed to: ${address}.${vat}`;
}

export const NO_MORE_RETRIES: Record<Language, string> = {
  en: 'no later date (that was the last try)',
  ru: 'не будет (это была последняя попытка)',
  zh: '不再尝试（这是最后一次）',
};

/** {browser}, {place} and {time} of the security notices, in the mail's language. */
const UNKNOWN: Record<Language, string> = { en: 'unknown', ru: 'неизвестно', zh: '未知' };
const LOCALE: Record<Language, string> = { en: 'en-GB', ru: 'ru-RU', zh: 'zh-CN' };

/** "Chrome on Windows" (browser family and system, never versions); "unknown" when the user agent names neither. */
export function browserLabel(language: Language, ua: { browser: string | null; os: string | null }): string {
  if (!ua.browser && !ua.os) return UNKNOWN[language];
  if (!ua.os) return ua.browser!;
  if (!ua.browser) return ua.os;
  return language === 'en'
    ? `${ua.browser} on ${ua.os}`
    : language === 'ru'
      ? `${ua.browser}, ${ua.os}`
      : `${ua.os} 上的 ${ua.browser}`;
}

/** A country's name from its ISO code in the mail's language; "unknown" when the address had none. */
export function placeLabel(language: Language, country: string | undefined): string {
  if (!country) return UNKNOWN[language];
  try {
    return new Intl.DisplayNames([LOCALE[language]], { type: 'region' }).of(country) ?? country;
  } catch {
    return country;
  }
}

/** The time in UTC (the mail does not know the reader's time zone, so it says which one it uses). */
export function timeLabel(language: Language, at: Date): string {
  return `${new Intl.DateTimeFormat(LOCALE[language], { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(at)} UTC`;
}
