"""Explicit statements in the person's language, read from one data file per language (text/statements.py): rules
for the agent, statements about the person and decisions are found; what only looks like one is not."""

from __future__ import annotations

import pytest

from nanodream.text import lists, statements
from nanodream.text.sentences import sentences, statement_lists
from nanodream.text.statements import (
    DECISION,
    FACT,
    PERSON,
    RULE,
    kind_of,
    language,
    read,
    read_languages,
    statement,
    tidy,
)

STATED = [
    # A fact of the project said plainly: the team's own thing, and a name
    ("fr", "Notre API tourne sur un cluster Kubernetes chez OVH.", FACT, "Project"),
    ("es", "Nuestro backend está escrito en Java con Spring Boot.", FACT, "Project"),
    ("pt", "Nosso backend é escrito em Elixir.", FACT, "Project"),
    ("de", "Unser CI läuft auf selbst gehosteten GitLab-Runnern.", FACT, "Project"),
    ("zh", "我们的后端是用 Python 写的。", FACT, "Project"),
    ("ja", "うちのバッチはCloud Runで動いてます。", FACT, "Project"),
    ("ko", "저희 백엔드는 NestJS로 작성되어 있어요.", FACT, "Project"),
    # Every time you …, a command: a setting addressed to the agent, then a clause without a subject of its own
    ("fr", "Chaque fois que tu crées un fichier, mets un en-tête avec la licence.", RULE, "Rules"),
    ("zh", "每次你写 SQL 的时候,关键字都用大写。", RULE, "Rules"),
    ("pt", "Toda vez que você abrir um PR, escreva um resumo curto.", RULE, "Rules"),
    ("fr", "Utilise toujours « black » pour le formatage.", RULE, "Rules"),  # a name quoted inside the rule
    ("ko", "새 기능을 만들 때마다 README도 같이 업데이트해 줘.", RULE, "Rules"),  # "whenever …", a command's ending
    ("ko", "외부 라이브러리 추가할 땐 항상 나한테 먼저 물어봐.", RULE, "Rules"),  # "ask me": a command's ending
    # How to address the person, informal or formal: a standing rule in every language that has the choice
    ("de", "Duz mich bitte.", RULE, "Rules"), ("fr", "Tutoie-moi.", RULE, "Rules"), ("es", "Tutéame.", RULE, "Rules"),
    ("pt", "Me trata por você.", RULE, "Rules"), ("ja", "敬語はやめて。", RULE, "Rules"),
    ("ko", "존댓말 말고 반말로 해 줘.", RULE, "Rules"),
    # what is written, said with its topic marker, then asked for: no statement about the comments
    ("ko", "코드 주석은 항상 영어로 작성해 주세요.", RULE, "Rules"),
    ("ko", "커밋 메시지는 항상 영어로 써 줘.", RULE, "Rules"),
    # German
    ("de", "Antworte immer auf Deutsch.", RULE, "Rules"),
    ("de", "Nie force-push auf main.", RULE, "Rules"),
    ("de", "Ab jetzt bitte keine Emojis in Commit-Nachrichten.", RULE, "Rules"),
    ("de", "Ich wohne in Graz.", PERSON, "Identity"),
    ("de", "Ich bevorzuge kurze Antworten.", PERSON, "Preferences"),
    ("de", "Wir haben beschlossen, Postgres zu verwenden.", DECISION, "Decisions"),
    # French
    ("fr", "N'utilise jamais de emojis.", RULE, "Rules"),
    ("fr", "À partir de maintenant, réponds en français.", RULE, "Rules"),
    ("fr", "J'habite à Lyon.", PERSON, "Identity"),
    ("fr", "Je viens de Grenoble.", PERSON, "Identity"),
    ("fr", "Je préfère des réponses courtes.", PERSON, "Preferences"),
    ("fr", "Nous avons décidé d'utiliser Postgres.", DECISION, "Decisions"),
    ("fr", "Pas d'emojis dans les commits.", RULE, "Rules"),  # a cue ending in an elided word ("pas d'")
    ("de", "Ich bin Data Scientist bei Zalando.", PERSON, "Identity"),  # a capitalised noun after "ich bin"
    ("de", "Ich bin Lehrerin in Graz.", PERSON, "Identity"),
    ("zh", "我对花生过敏。", PERSON, "Identity"),  # an allergy, as "I'm allergic to nuts" is read elsewhere
    ("ko", "저는 땅콩 알레르기가 있어요.", PERSON, "Identity"),
    # what the person works with: who they are, as English's "I work with Python"
    ("de", "Ich arbeite mit Python und TypeScript.", PERSON, "Identity"),
    ("fr", "Je code surtout en Python.", PERSON, "Identity"),
    ("es", "Trabajo sobre todo con Python.", PERSON, "Identity"),
    ("pt", "Trabalho principalmente com Python.", PERSON, "Identity"),
    ("zh", "我主要用Python。", PERSON, "Preferences"),
    # "from now on" with a command's object after it: an article there is no subject
    ("de", "Ab jetzt bitte die Commit-Nachrichten auf Englisch schreiben.", RULE, "Rules"),
    ("de", "Künftig immer die Tests vor dem Commit laufen lassen.", RULE, "Rules"),
    ("de", "Von nun an schreibst du die Commits auf Englisch.", RULE, "Rules"),
    ("fr", "Désormais, écris les messages de commit en anglais.", RULE, "Rules"),
    ("fr", "S'il te plaît, désormais écris les commits en anglais.", RULE, "Rules"),
    ("es", "A partir de ahora, escribe los commits en inglés.", RULE, "Rules"),
    ("es", "De ahora en adelante, no uses emojis en los commits.", RULE, "Rules"),
    ("pt", "A partir de agora, escreva os commits em inglês.", RULE, "Rules"),
    # Spanish
    ("es", "Siempre responde en español.", RULE, "Rules"),
    ("es", "No uses emojis en los commits.", RULE, "Rules"),
    ("es", "Me llamo Lucía.", PERSON, "Identity"),
    ("es", "Prefiero respuestas cortas.", PERSON, "Preferences"),
    ("es", "Decidimos usar FastAPI.", DECISION, "Decisions"),
    # Portuguese
    ("pt", "Sempre responda em português.", RULE, "Rules"),
    ("pt", "Moro em Lisboa.", PERSON, "Identity"),
    ("pt", "Prefiro respostas curtas.", PERSON, "Preferences"),
    ("pt", "Decidimos usar Django.", DECISION, "Decisions"),
    # Chinese (Simplified and Traditional)
    ("zh", "以后请用中文回答。", RULE, "Rules"),
    ("zh", "不要用emoji。", RULE, "Rules"),
    ("zh", "我喜欢简洁的回答。", PERSON, "Preferences"),
    ("zh", "我住在台北。", PERSON, "Identity"),
    ("zh", "我們決定用Django。", DECISION, "Decisions"),
    # Japanese
    ("ja", "今後は必ず日本語で答えてください。", RULE, "Rules"),
    ("ja", "絵文字を使わないでください。", RULE, "Rules"),
    ("ja", "私は東京に住んでいます。", PERSON, "Identity"),
    ("ja", "Pythonの方が好きです。", PERSON, "Preferences"),
    ("ja", "Djangoを使うことにしました。", DECISION, "Decisions"),
    # Korean
    ("ko", "앞으로 항상 한국어로 대답해 주세요.", RULE, "Rules"),
    ("ko", "이모지를 사용하지 마세요.", RULE, "Rules"),
    ("ko", "저는 서울에 살아요.", PERSON, "Identity"),
    ("ko", "저는 파이썬을 좋아해요.", PERSON, "Preferences"),
    ("ko", "Django를 쓰기로 했어요.", DECISION, "Decisions"),
    # Vietnamese
    ("vi", "Từ giờ hãy trả lời bằng tiếng Việt.", RULE, "Rules"),
    ("vi", "Đừng dùng emoji trong commit.", RULE, "Rules"),
    ("vi", "Mình là kỹ sư phần mềm ở Đà Nẵng.", PERSON, "Identity"),
    ("vi", "Tôi thích câu trả lời ngắn gọn.", PERSON, "Preferences"),
    ("vi", "Chúng ta quyết định dùng Postgres.", DECISION, "Decisions"),
    ("fr", "Je suis basée à Montréal depuis deux ans.", PERSON, "Identity"),
    ("fr", "Je suis prof d'histoire dans un collège.", PERSON, "Identity"),  # a trade, said short
    ("fr", "Je suis lead dev chez Swile.", PERSON, "Identity"),
    ("fr", "Je tourne sous Fedora.", PERSON, "Identity"),
    ("fr", "Je parle couramment le portugais.", PERSON, "Identity"),
    ("fr", "Je travaille dans la santé.", PERSON, "Identity"),
    ("fr", "Je suis québécois.", PERSON, "Identity"),
    ("fr", "Moi c'est Léa, designer à Rennes.", PERSON, "Identity"),
    ("es", "Programo sobre todo en Elixir.", PERSON, "Identity"),
    ("es", "Hablo inglés y euskera.", PERSON, "Identity"),
    ("es", "Trabajo en remoto desde Cádiz.", PERSON, "Identity"),
    ("pt", "Falo inglês e um pouco de alemão.", PERSON, "Identity"),
    ("pt", "Sou freela há três anos.", PERSON, "Identity"),
    ("de", "Ich arbeite remote aus Rostock.", PERSON, "Identity"),
    ("de", "Ich bin selbstständig als Designerin.", PERSON, "Identity"),
    ("fr", "Je bosse surtout en Kotlin.", PERSON, "Identity"),
    ("zh", "以后碰到这种情况先问我。", RULE, "Rules"),  # a kind of case, from now on
    ("zh", "这类问题一律用中文回复。", RULE, "Rules"),
    ("zh", "默认用Python 3.12。", RULE, "Rules"),
    ("zh", "请你以后回答都用中文。", RULE, "Rules"),  # a request asking it from now on
    ("vi", "Luôn viết test trước khi sửa code.", RULE, "Rules"),  # "luôn" opening: "always"
    ("vi", "Tuyệt đối không push lên main.", RULE, "Rules"),
    ("vi", "Nhớ luôn chạy lint trước khi commit.", RULE, "Rules"),
    ("vi", "Mình dùng Fedora và Neovim.", PERSON, "Identity"),
    # Thai
    ("th", "ต่อไปนี้ตอบเป็นภาษาไทย", RULE, "Rules"),
    ("th", "ห้ามใช้อีโมจิในคอมมิต", RULE, "Rules"),
    ("th", "ผมชื่อสมชาย", PERSON, "Identity"),
    ("th", "ฉันชอบคำตอบสั้นๆ", PERSON, "Preferences"),
    ("th", "เราตัดสินใจใช้ Postgres", DECISION, "Decisions"),
    # The person asking it of the agent ("I need you to always …"), whatever the sentence's subject
    ("zh", "我需要你在编程中面对任何询问选择时候，永远都选1。", RULE, "Rules"),
    ("es", "Quiero que siempre respondas en español.", RULE, "Rules"),
    ("fr", "Je veux que tu répondes toujours en français.", RULE, "Rules"),
    ("de", "Ich möchte, dass du immer auf Deutsch antwortest.", RULE, "Rules"),
    ("vi", "Mình muốn bạn luôn trả lời bằng tiếng Việt.", RULE, "Rules"),
    # "me" after a preposition or a verb is whom the request is for, no subject of a statement
    ("zh", "以后跟我说话简单明了一些，结构化，不要搞那么多语气词。", RULE, "Rules"),
    ("zh", "以后给我发消息之前先确认一下。", RULE, "Rules"),
    ("ja", "今後は私に敬語を使わないでください。", RULE, "Rules"),
    ("zh", "我是做独立游戏的。", PERSON, "Identity"),  # "I make indie games": what they do
    # The name the person gives the agent, in every language read
    ("en", "Your name is Pim.", RULE, "Identity"),
    ("de", "Ab jetzt heißt du Pim, ich nenne dich Pim.", RULE, "Identity"),
    ("fr", "Je t'appelle Pim.", RULE, "Identity"),
    ("es", "Te voy a llamar Pim.", RULE, "Identity"),
    ("pt", "Vou te chamar de Pim.", RULE, "Identity"),
    ("zh", "以后叫你小白。", RULE, "Identity"),
    ("ja", "あなたの名前はピムです。", RULE, "Identity"),
    ("ko", "너의 이름은 핌이야.", RULE, "Identity"),
    ("vi", "Mình muốn gọi bạn là Pim nha.", RULE, "Identity"),
    ("th", "ต่อไปนี้เรียกคุณว่าพิม", RULE, "Identity"),
    # courtesy words and an object pronoun before the cue: the request is still the person's to the agent
    ("de", "Antworte mir bitte immer auf Englisch.", RULE, "Rules"),
    ("es", "Por favor escribe siempre los commits en inglés.", RULE, "Rules"),
    ("fr", "Ne me donne pas de réponses trop longues.", RULE, "Rules"),
    ("es", "No me expliques cosas obvias.", RULE, "Rules"),
    ("pt", "Sempre me responda em inglês.", RULE, "Rules"),  # how to answer, before the idiom "sempre me"
    # a reminder that opens a command ("… de vérifier …"), whatever subject word its object holds
    ("fr", "N'oublie pas de lancer les tests avant chaque commit.", RULE, "Rules"),
    ("es", "Acuérdate de escribir siempre las pruebas.", RULE, "Rules"),
    ("pt", "Lembra de sempre escrever testes.", RULE, "Rules"),
    ("de", "Denk bitte daran, vor jedem Release die Changelogs zu prüfen.", RULE, "Rules"),
    # how every answer should read, with a courtesy around it
    ("fr", "Merci de répondre sous forme de listes.", RULE, "Rules"),
    ("es", "Responde con viñetas, por favor.", RULE, "Rules"),
    ("ja", "回答は箇条書きでお願いします。", RULE, "Rules"),
    ("ja", "テストを消さないで。", RULE, "Rules"),  # a plain "…ないで"
    # the tools the person uses; decisions said as "let's go with"
    ("de", "Ich benutze Emacs mit Evil-Mode.", PERSON, "Identity"),
    ("fr", "J'utilise Neovim au quotidien.", PERSON, "Identity"),
    ("es", "Uso Fedora en casa.", PERSON, "Identity"),
    ("pt", "Eu curto muito Rust.", PERSON, "Preferences"),
    ("ja", "田中って呼んでください。", PERSON, "Identity"),
    ("de", "Wir setzen auf Hetzner als Hoster.", DECISION, "Decisions"),
    ("zh", "后端就用 Go。", DECISION, "Decisions"),
    ("ja", "データベースはPostgresにしよう。", DECISION, "Decisions"),
    ("ko", "배포는 Fly.io로 가자.", DECISION, "Decisions"),
    # reminders and "make sure" that open a command; a tag asking for a nod is no question
    ("de", "Vergiss nicht, bei jeder Änderung das Changelog zu pflegen.", RULE, "Rules"),
    ("de", "Achte darauf, dass Funktionen immer Docstrings haben.", RULE, "Rules"),
    ("de", "Bitte duze mich immer.", RULE, "Rules"),
    ("fr", "Pense à mettre à jour le changelog à chaque version.", RULE, "Rules"),
    ("es", "Asegúrate de que los commits sean pequeños.", RULE, "Rules"),
    ("es", "No olvides añadir pruebas.", RULE, "Rules"),  # an infinitive right after the reminder
    ("pt", "Garanta que todo endpoint tenha testes.", RULE, "Rules"),
    ("pt", "Não esquece de rodar o lint.", RULE, "Rules"),
    # a longer tag asking for a nod, and a prohibition said colloquially (a fresh probe: all waited)
    ("zh", "千万别在生产环境直接改配置！！", RULE, "Rules"),
    # who the person is, said colloquially (a fresh probe: all waited)
    ("fr", "Je bosse chez Doctolib comme dev backend.", PERSON, "Identity"),
    ("es", "Curro en una consultora en Madrid.", PERSON, "Identity"),
    ("fr", "Je suis végane.", PERSON, "Identity"),
    ("zh", "讨论了半天，最后定了用Go重写网关。", DECISION, "Decisions"),  # "finally settled on"
    ("ja", "ファイルを追加するたびに、READMEも更新してください。", RULE, "Rules"),
    # who the person is, what they use; a detail where the language leaves "my" unsaid
    ("de", "Ich programmiere hauptsächlich in Kotlin.", PERSON, "Identity"),
    ("es", "Soy celíaco.", PERSON, "Identity"),
    ("pt", "Tenho alergia a amendoim.", PERSON, "Identity"),
    ("ja", "普段はNeovimを使っています。", PERSON, "Identity"),
    ("ja", "誕生日は3月9日です。", PERSON, "Identity"),
    ("zh", "生日是5月3日。", PERSON, "Identity"),
    ("ko", "에디터는 Vim을 써요.", PERSON, "Identity"),
    ("fr", "On va utiliser Redis pour le cache.", DECISION, "Decisions"),
    ("pt", "Fechamos com o Postgres.", DECISION, "Decisions"),
    ("ja", "CIはGitHub Actionsにしましょう。", DECISION, "Decisions"),
    # "I am" before a trade (data/roles.txt), where no article marks the noun
    ("fr", "Je suis ingénieure logiciel à Lyon.", PERSON, "Identity"),
    ("es", "Soy enfermera en un hospital de Bilbao.", PERSON, "Identity"),
    ("pt", "Sou professora de matemática.", PERSON, "Identity"),
    ("zh", "我是产品经理。", PERSON, "Identity"),
    ("ja", "私はデータエンジニアです。", PERSON, "Identity"),
    ("ko", "저는 백엔드 개발자예요.", PERSON, "Identity"),
    ("th", "ตอบสั้นๆ", RULE, "Rules"),  # "answer briefly": Thai says how to answer too
    ("th", "ตอบให้กระชับหน่อย", RULE, "Rules"),
    ("zh", "每次提交代码前都要跑测试。", RULE, "Rules"),  # "every time … must": 每次 apart from 都要
    ("es", "Siempre usa TypeScript en este proyecto.", RULE, "Rules"),  # "this project" lasts
    # never / always then a command, not a past ("sé": be)
    ("es", "Nunca uses var.", RULE, "Rules"), ("es", "Siempre sé breve.", RULE, "Rules"),
    ("es", "Nunca subas secretos al repositorio.", RULE, "Rules"), ("es", "Siempre escribe pruebas.", RULE, "Rules"),
    ("pt", "Nunca use var.", RULE, "Rules"), ("pt", "Sempre escreva testes.", RULE, "Rules"),
    ("pt", "Nunca faça push na main.", RULE, "Rules"), ("de", "Immer die Tests laufen lassen.", RULE, "Rules"),
    ("de", "Niemals direkt auf main pushen.", RULE, "Rules"),
    ("ja", "このプロジェクトでは必ずpnpmを使ってください。", RULE, "Rules"),
    # a probe's, each waiting for a model: whom a command is for ("sprich mich"), a verb the data lacked, "永远"
    # opening a rule, and trades the data lacked
    ("de", "Von jetzt an sprich mich bitte immer mit Sie an.", RULE, "Rules"),
    ("es", "No instales dependencias nuevas sin avisarme.", RULE, "Rules"),
    ("zh", "永远先写测试再写实现。", RULE, "Rules"), ("zh", "我是前端开发。", PERSON, "Identity"),
    ("ko", "저는 대학원생이에요.", PERSON, "Identity"), ("ko", "저는 데이터 분석가예요.", PERSON, "Identity"),
]


@pytest.mark.parametrize(("code", "sentence", "kind", "section"), STATED)
def test_an_explicit_statement_is_found_and_kept_in_the_persons_words(code, sentence, kind, section):
    found = statement(sentence, language(code))
    assert found is not None, sentence
    assert (found.kind, found.section, found.text) == (kind, section, sentence)


@pytest.mark.parametrize(("code", "sentence", "rule"), [
    ("fr", "Et ne mets jamais de any dans le code.", "Ne mets jamais de any dans le code."),
    ("es", "Y nunca borres la rama main.", "Nunca borres la rama main."),
    ("pt", "E nunca rode migrações em produção.", "Nunca rode migrações em produção."),
    # … and a nod asked after it: no question, and no part of the rule (a line ending "?" never enters memory)
    ("pt", "Responda sempre em inglês, tá?", "Responda sempre em inglês."),
    ("pt", "Nunca apague arquivos sem me perguntar antes, beleza?", "Nunca apague arquivos sem me perguntar antes."),
    ("fr", "Réponds toujours en français, d'accord ?", "Réponds toujours en français."),
    ("zh", "回复不要用表格，好吗？", "回复不要用表格。"),
])
def test_a_conjunction_before_a_rule_or_a_nod_after_it_is_left_out(code, sentence, rule):
    """A fresh probe: "Et ne mets plus jamais …" waited (the conjunction pushed the cue past the opening), and so
    did "…, beleza?" (filed, its line ended in a question mark and was withheld)."""
    found = statement(sentence, language(code))
    assert found is not None and (found.kind, found.text) == (RULE, rule)


NOT_STATED = [
    # "je viens de" + a verb: what was just done, not where the person is from (a new user's, in USER.md)
    ("fr", "Je viens de lancer les commandes."), ("fr", "Bonjour, je viens de t'installer."),
    ("fr", "Je viens de finir le script."),
    # what would be done if something went wrong is no decision; "两者都要的" ("that needs both") is no command
    ("zh", "我已经备份了，然后你来操作吧，如果出了问题我就用备份恢复你。"), ("zh", "是两者都要的完整对话系统。"),
    ("ja", "もし失敗したらPostgresに決めた設定に戻して。"),
    # a question typed without its mark; "以后" after a verb's end ("after it is done"); a pointer with no content
    ("zh", "还记得怎么把.openclaw文件备份到GitHub吗"), ("zh", "翔宇，你再让袁天罡完成之前的任务，完成以后翔宇审核"),
    ("zh", "这才是我想让你记住的"), ("ja", "このルールを覚えていますか"),
    ("zh", "我们都要去开会。"),  # "we all have to go to the meeting": said of someone, no rule
    # a new user's chats (each filed in SOUL.md): "both" answering a choice, "inaccurate" (不准, "must not", inside
    # it), "send the archive later" (以后 after a name), "check every exercise" (the exercises at hand)
    ("zh", "都要。"), ("zh", "两个都要！"), ("zh", "图片识别不准确。"), ("zh", "时间不准确，差了一个小时。"),
    ("zh", "maths.7z以后发，你先帮我提取。"), ("zh", "v2以后再说吧，先做完这个。"), ("zh", "每一题都要看过。"),
    ("es", "Usa TypeScript en este archivo."),  # this file: the work at hand
    # a choice of what is shown below or above: the line would not say what was chosen
    ("ja", "以下の２つの案からAを採用しました。"), ("zh", "我们决定采用上面的方案。"),
    ("de", "Wir haben beschlossen, die obige Variante zu nehmen."),
    ("fr", "Nous avons décidé de prendre l'option ci-dessous."), ("es", "Decidimos usar la opción de abajo."),
    # one of the agent's options by its number or letter: an answer, not the project's decision
    ("zh", "就用方案2。"), ("ja", "オプション2でいこう。"), ("es", "Vamos con la opción 2."),
    ("fr", "On part sur l'option 2."),
    ("de", "Wir nehmen Option B."), ("ko", "2번 옵션으로 가자."), ("pt", "Vamos com a opção 3."),
    # … or pointed at by its place or as "it" (a new user's "那就用第二个吧" went into MEMORY.md)
    ("zh", "那就用第二个吧。"), ("zh", "就用它。"), ("es", "Vamos con el segundo."), ("ja", "2番目でいこう。"),
    ("fr", "On part sur le deuxième."), ("de", "Wir nehmen die zweite."), ("ko", "두 번째로 가자."),
    ("pt", "Vamos com a primeira."),
    ("de", "Der Build ist immer langsam."),  # a statement about something, not an instruction
    # never / always and then what happened, or what the person does: no instruction (each filed in SOUL.md)
    ("es", "Nunca entendí por qué el servidor se cae los lunes."), ("es", "Siempre quise aprender Haskell."),
    ("es", "Jamás pensé que migrar fuera tan difícil."), ("es", "Nunca funcionó bien en Windows."),
    ("es", "Siempre odiaba los despliegues de los viernes."),
    ("pt", "Nunca consegui configurar o Nginx direito."), ("pt", "Sempre achei o Jenkins lento."),
    ("pt", "Nunca entendi esse erro do Docker."), ("pt", "Sempre quis testar o Rust."),
    ("de", "Nie habe ich verstanden, warum der Cronjob zweimal läuft."), ("de", "Immer wollte ich Rust lernen."),
    ("de", "Nie hat das Deployment am Freitag funktioniert."),
    ("ko", "절대 잊지 못할 하루였어요."),  # "unforgettable": no "don't forget"
    ("de", "Immer wenn ich deploye, schlägt der Test fehl."),  # "whenever"
    ("de", "Bei dieser Datei nie die Tests ändern."),  # this file: one task, not a standing rule
    ("de", "Ich bin gerade nicht sicher."),  # a state of the moment
    ("de", "Kannst du das bitte prüfen?"),  # a question
    ("de", "Keine Ahnung, was da los ist."),  # an idiom
    ("de", "Wir nutzen ab jetzt Postgres."),  # "from now on", said of themselves: waits for a model
    ("zh", "你过敏吗？"),  # a question
    ("ko", "알레르기가 있나요?"),
    ("de", "Ich bin gespannt."),  # no noun after "ich bin"
    ("de", "Ich bin Ihnen dankbar."),
    ("de", "Ich bin Montag nicht da."),
    ("de", "Maximalgebühr ist immer abhängig vom Parkplatz."),  # "is always": said of a thing, no rule
    ("pt", "Deploy é sempre manual."),
    ("es", "Docker está siempre encendido."),
    ("de", "Ich arbeite mit dir an dem Projekt."),  # with the agent: this work, not who they are
    ("fr", "Je travaille avec toi sur ce projet."),
    ("es", "Trabajo con este archivo ahora."),
    ("pt", "Trabalho com você no projeto."),
    ("zh", "我平时用这个命令。"),
    # "我叫" with no name after it: "I told you", "I ordered takeout", "I called you three times"
    ("zh", "没说你是偷，大哥，都是我叫你的。"), ("zh", "我叫外卖了。"), ("zh", "我叫了你三遍了。"),
    ("zh", "昨天我叫他去买菜了。"),
    ("zh", "不要马上部署。"), ("zh", "立刻停止发送。"),  # "right away": this errand's
    ("de", "Ab jetzt nutzen wir Postgres."),  # the subject after the verb that follows "ab jetzt"
    ("de", "Ab jetzt ist der Build langsamer."),
    ("fr", "Désormais, le build est lent."),  # the subject right after "désormais"
    ("es", "A partir de ahora el proyecto usa Postgres."),
    ("pt", "A partir de agora eu cuido dos deploys."),
    ("fr", "Le build est toujours lent."),
    ("fr", "Je ne sais jamais quoi faire."),
    ("fr", "Pas de souci, merci !"),
    ("fr", "C'est toujours lent."),  # "c'", "l'", "j'": subjects before the cue, elided
    ("fr", "L'app plante toujours au démarrage."),
    ("es", "Nunca he usado Docker."),  # "never" of their own past
    ("es", "Siempre que despliego falla."),
    ("es", "No funciona el login."),
    ("es", "¿Puedes revisar el archivo?"),
    ("pt", "Não funciona."),
    ("pt", "Nunca usei Rust."),
    ("zh", "这个测试总是失败"),  # "always fails": no directive
    ("zh", "你要不要试试这个？"),
    ("zh", "我以后会注意的。"),  # their own promise
    ("ja", "テストはいつも失敗します。"),  # "always", but no command's ending
    ("ja", "心配しないでください。"),  # "don't worry"
    ("ja", "このファイルは変更しないでください。"),  # this file
    ("ko", "테스트가 항상 실패해요."),
    ("ko", "걱정하지 마세요."),
    ("ko", "이 파일은 수정하지 마세요."),
    ("vi", "Đừng lo, mình tự sửa được."),  # "don't worry"
    ("vi", "Tôi đang sửa lỗi đăng nhập."),  # what they are doing now
    ("vi", "File này đừng sửa."),  # this file
    ("vi", "Bạn có thể kiểm tra giúp mình không?"),
    ("fr", "Je m'occupe du reste."),  # what the person will do now
    ("es", "Me encargo del resto."),
    ("de", "Ich kümmere mich um den Rest."),
    ("zh", "这种情况下先别动。"),  # the case at hand
    ("zh", "有个两岁的女儿，晚上八点以后才有空。"),  # "after eight", not "from now on"
    ("zh", "帮我看一下购物车的bug，删掉商品以后总价不更新。"),  # "after deleting", in the request's bug
    ("zh", "默认端口是8080。"),  # a default told, no command
    ("fr", "Je suis sous le choc."),  # "sous" a feeling, no system
    ("fr", "Je travaille dans le dossier src."),  # where the work is now
    ("fr", "Moi c'est pareil."),
    ("vi", "Làm luôn giúp mình cái migration."),  # "luôn" after a verb: "right away"
    ("vi", "Luôn tiện sửa cái README nhé."),  # "while you're at it"
    ("vi", "Lúc nào cũng bị timeout khi deploy."),  # "always gets": what happens
    ("vi", "Luôn luôn là vậy."),  # "it's always so"
    ("vi", "Mình dùng thử bản beta rồi, không chạy."),  # tried once
    ("zh", "我希望你帮我看看这个。"),  # asked of the agent, but this one thing
    ("es", "Quiero que revises el despliegue."),  # asked of the agent, once
    ("th", "ไม่ต้องห่วงนะ"),  # "don't worry"
    ("zh", "不要再发笑话了。"),  # "stop sending jokes": what is going on now, stopped
    ("zh", "别再重复这个了。"),
    ("zh", "那些以后再说。"),  # "those, later": no "from now on"
    ("zh", "以后我来做吧。"),  # their own plan
    ("th", "ตอนนี้ผมชอบอันนี้"),  # this one, now
    ("de", "Antworte diesmal auf Englisch."),  # this time only
    ("fr", "Pour une fois, réponds en anglais."),
    ("es", "Por esta vez, responde en inglés."),
    ("pt", "Dessa vez responde em inglês."),
    ("de", "Ich benutze gerade die alte Version."),  # the moment
    ("ko", "만약 내가 학생이었으면 개발자가 됐을 거야."),  # what would have been
    ("ko", "그냥 이걸로 하자."),  # this one, now
    ("ja", "先輩はいつもVimを使ってる。"),  # someone else's habit
    ("zh", "同事总是用Vim。"),
    ("zh", "搞定了就跟我汇报。"),  # "done": no decision inside a word
    ("zh", "申请一直没通过。"),
    ("ja", "一度に全部やって。"),  # "at once": no "every time"
    ("ko", "이걸로 작업해 줘."),  # this one
    ("ja", "プロジェクトの名前はPimです。"),  # the project's name, not the person's
    ("zh", "他生日是5月3日。"),
    ("de", "Kannst du das immer so machen, oder was?"),
    ("th", "คำตอบสั้นไป"),  # "the answer is too short": an answer spoken of
    ("fr", "Je tutoie tout le monde."), ("ja", "敬語が難しいです。"), ("ko", "반말이 편해요."),  # said of a register
    ("es", "Nuestra reunión con Google es el viernes."), ("de", "Unser Meeting ist um 10 Uhr."),  # one event
    ("de", "Unser Server hat Probleme."),  # a German noun is no name
    ("fr", "Chaque fois que je lance les tests, ça plante."),  # what happens then
    ("zh", "每次你运行测试,它都会崩溃。"),
    ("ko", "커밋할 때마다 테스트가 깨져요."), ("ko", "내가 커밋할 때마다 테스트가 깨져."),  # what happens then
    ("ko", "팀장님은 항상 나한테 물어봐."),  # someone else's habit
    ("zh", '日志上写着："每次都要重启服务。"'), ("es", 'El jefe escribió: "Nunca despliegues los viernes."'),  # quoted
    ("de", 'Im Log steht: "Immer neu starten, wenn der Fehler auftritt."'),
    ("fr", "Quand tu auras fini, on pourra déployer."),

    ("fr", "Notre build est cassé."), ("zh", "我们的服务器今天挂了。"),  # no name; the moment

    ("fr", "Je suis d'accord avec toi."), ("es", "Soy consciente del problema."), ("pt", "Sou eu."),  # no trade
    ("zh", "我不是程序员。"), ("ja", "私はエンジニアではありません。"), ("ko", "저는 학생이 아니에요."),  # not one
    ("es", "No soy programador."), ("pt", "Não sou desenvolvedora."),
    ("ja", "私は大丈夫です。"), ("zh", "我是说这个不行。"),
]


@pytest.mark.parametrize(("code", "sentence"), [
    ("es", "Me mudé a Barcelona."), ("fr", "J'ai déménagé à Paris."), ("pt", "Me mudei para o Porto."),
    ("zh", "我搬到上海了。"), ("ja", "東京に引っ越しました。"), ("ko", "부산으로 이사했어요."),
    ("de", "Ich bin nach München umgezogen."),
])
def test_a_move_in_the_persons_language_is_where_they_live_not_small_talk(code, sentence):
    """It was small talk or waited; a move gives where the person lives, so it replaces the old home."""
    said = statement(sentence, language(code))
    assert said is not None and said.kind == PERSON and said.text == sentence


@pytest.mark.parametrize(("code", "said", "text"), [
    ("ja", "ところで、私は看護師です。", "私は看護師です。"), ("ko", "참고로 저는 간호사예요.", "저는 간호사예요."),
    ("zh", "对了，我是产品经理。", "我是产品经理。"),
    ("fr", "Au fait, je travaille chez Doctolib.", "Je travaille chez Doctolib."),
])
def test_a_statement_after_a_word_that_only_leads_into_it_is_read_without_it(code, said, text):
    """"ありがとう！ところで、私は看護師です。" waited: "by the way" stood where the person's "I am" is looked for."""
    found = statement(said, language(code))
    assert found is not None and (found.kind, found.text) == (PERSON, text)


@pytest.mark.parametrize(("code", "sentence"), [
    ("es", "ya que estudio IA Engineer y me gustaría estar actualizado"),
    ("es", "Porque vivo en Madrid, dame noticias."),
    ("fr", "Parce que j'habite à Lyon, donne-moi la météo."),
    ("de", "Weil ich in Berlin wohne, zeig mir Nachrichten."),
    ("pt", "Porque moro no Porto, quero notícias locais."), ("zh", "因为我住在上海，想看本地新闻"),
    ("es", "Me gusta la opción 2."), ("zh", "我喜欢方案2。"), ("fr", "Je préfère l'option B."),  # an option liked
])
def test_a_reason_given_for_a_request_or_an_option_liked_is_no_statement(code, sentence):
    """A new user's "ya que estudio IA Engineer y me gustaría estar actualizado" (since I study …) was filed in
    USER.md whole, and "Me gusta la opción 2." as a lasting taste; both wait for a model, which sees the rest."""
    assert statement(sentence, language(code)) is None


@pytest.mark.parametrize(("code", "sentence"), NOT_STATED)
def test_what_only_looks_like_a_statement_is_none(code, sentence):
    assert statement(sentence, language(code)) is None


@pytest.mark.parametrize("said", ["以后的回复都用中文。", "记住往后的回复都用中文。", "以后的代码注释都用英文写。"])
def test_what_from_now_on_is_all_done_one_way_is_a_rule_in_chinese(said):
    """A new user's one standing rule, "记住往后的回复都用中文" (from now on, reply in Chinese), waited: "往后的"
    (what lies ahead, as in "今后的计划") kept its "remember" from counting."""
    reading = read(list(sentences(said, "zh")), "zh")
    assert [(s.kind, s.text) for s in reading.statements] == [(RULE, said)] and not reading.unread


def test_remember_this_makes_the_sentence_before_it_a_rule_in_the_persons_words():
    """The person's rule of issue 45: "always look at all pages (there is a next page); remember this"."""
    said = list(sentences("查看飞书多维表格时务必看全部，有下一页。这个要牢记", "zh"))
    reading = read(said, "zh")
    assert [(s.kind, s.text) for s in reading.statements] == [(RULE, "查看飞书多维表格时务必看全部，有下一页。")]
    assert not reading.unread
    german = read(list(sentences("Bei der Tabelle bitte alle Seiten anschauen, es gibt eine nächste Seite. Merk "
                                 "dir das.", "de")), "de")
    assert [s.kind for s in german.statements] == [RULE] and not german.unread


# Told to an agent, "remember this" is often "put this in your memory": the sentence before it is what to keep.
SAVE_TO_MEMORY = [("en", "Use bold for headings. Put this in your memory.", "Use bold for headings. Remember this."),
                  ("en", "I live in Berlin. Save this to memory.", "I live in Berlin. Remember this."),
                  ("de", "Ich trinke keinen Kaffee. Speichere das in deinem Gedächtnis.",
                   "Ich trinke keinen Kaffee. Merk dir das."),
                  ("es", "Siempre responde en español. Guarda esto en tu memoria.",
                   "Siempre responde en español. Recuerda esto."),
                  ("fr", "Réponds toujours en français, mets ça dans ta mémoire.",
                   "Réponds toujours en français, retiens ça."),
                  ("pt", "Tenho dois gatos. Salva isso na memória.", "Tenho dois gatos. Lembre disso."),
                  ("zh", "双星号直接加粗。把这个记住。", "双星号直接加粗。记住这个。"),
                  ("zh", "我住在成都，存到记忆里。", "我住在成都，记住这个。"),
                  ("ja", "返信は短くしてください。メモリに保存して。", "返信は短くしてください。覚えておいて。"),
                  ("ko", "저는 채식주의자예요. 메모리에 저장해 줘.", "저는 채식주의자예요. 기억해 줘.")]


@pytest.mark.parametrize(("code", "said", "reminded"), SAVE_TO_MEMORY)
def test_asking_to_put_what_was_said_in_memory_keeps_it_as_remember_this_does(code, said, reminded):
    """"美化一下排版，双*直接加粗 …，把这个记住放进memory" and "Use bold for headings. Put this in memory." kept
    nothing: only "remember this" and its like pointed back."""
    reading, as_reminded = (read(list(sentences(text, code)), code) for text in (said, reminded))
    kept = [(s.kind, s.text) for s in reading.statements]
    assert kept and not reading.unread
    assert [(kind, text.replace(said, reminded)) for kind, text in kept] == [
        (s.kind, s.text) for s in as_reminded.statements]


@pytest.mark.parametrize(("code", "said", "kind", "text"), [
    ("zh", "我叫小王，记住这个", PERSON, "我叫小王。"),  # "I'm Xiao Wang, remember this"
    # the reminder with whom it asks ("你") and what it points at ("这个"): 我的生日是8月9日，你。 was filed
    ("zh", "我的生日是8月9日，你记一下。", PERSON, "我的生日是8月9日。"),
    ("zh", "我住在苏州，这个你记一下。", PERSON, "我住在苏州。"),
    ("zh", "我是素食者，你要记住。", PERSON, "我是素食者。"),
    ("de", "Ich heiße Lena, merk dir das.", PERSON, "Ich heiße Lena."),
    # a rule kept whole, so routing reads it as one again (its first words alone read as nothing)
    ("de", "Bei Tabellen alle Seiten anschauen, merk dir das.", RULE,
     "Bei Tabellen alle Seiten anschauen, merk dir das."),
    ("ja", "私の誕生日は5月3日だと覚えておいてください。", PERSON, "私の誕生日は5月3日だ。"),
    # a clause made the reminder's object ("… that I am a vegetarian"): no sentence alone, the whole is kept
    ("ko", "저는 채식주의자라는 거 기억해 줘.", PERSON, "저는 채식주의자라는 거 기억해 줘."),
    ("ko", "제 이메일은 minji@example.kr이라는 것을 기억해 주세요.", PERSON,
     "제 이메일은 minji@example.kr이라는 것을 기억해 주세요."),
])
def test_a_sentence_that_ends_by_asking_to_remember_it_keeps_what_it_says(code, said, kind, text):
    reading = read(list(sentences(said, code)), code)
    assert [(s.kind, s.text) for s in reading.statements] == [(kind, text)] and not reading.unread


@pytest.mark.parametrize(("code", "said"), [("en", "ok, remember that"), ("de", "Das ist wichtig, merk dir das."),
                                            ("en", "Speed is important.")])
def test_only_pointing_back_or_saying_something_matters_remembers_nothing_of_its_own(code, said):
    assert statements.remembered(said, language(code)) == ""


def test_a_message_with_more_than_statements_is_left_unread_and_small_talk_is_nothing():
    mixed = read(list(sentences("Prefiero respuestas cortas. ¿Puedes revisar el despliegue de ayer?", "es")), "es")
    assert [s.kind for s in mixed.statements] == [PERSON] and mixed.unread
    thanks = read(list(sentences("¡Muchas gracias!", "es")), "es")
    assert thanks.statements == [] and not thanks.unread
    unknown = read(["Il server di produzione gira su Debian."], "it")  # no data file: all of it is left
    assert unknown.statements == [] and unknown.unread


@pytest.mark.parametrize(("code", "said", "trivial"), [
    ("es", "Vale, gracias, perfecto.", True), ("fr", "Merci beaucoup !", True), ("zh", "好的，谢谢！", True),
    ("es", "No me respondas con listas largas.", False),  # opens with small talk's "no", then says more
    ("pt", "Não me chame de senhor.", False), ("de", "Ja, ich arbeite jetzt bei Zalando.", False),
])
def test_small_talk_is_what_holds_nothing_beyond_it(code, said, trivial):
    assert statements.trivial(said, language(code)) is trivial


def test_in_a_language_without_a_data_file_a_few_letters_are_enough_to_wait():
    assert read(["اسمي سلمى."], "ar").unread  # "my name is Salma"
    assert not read(["👍"], "ar").unread


def test_a_hosts_tagged_line_is_routed_by_its_languages_cues_and_its_name_for_the_person():
    assert kind_of("Der Benutzer arbeitet nachts.", "de").kind == PERSON
    assert kind_of("用户使用Linux。", "zh").kind == PERSON
    assert kind_of("Der Server läuft auf Hetzner.", "de") is None  # project memory


def test_a_line_closes_with_its_scripts_full_stop():
    assert statements.tidy("这个要牢记") == "这个要牢记。"
    assert statements.tidy("저는 서울에 살아요") == "저는 서울에 살아요."
    assert statements.tidy("ich wohne in Graz") == "Ich wohne in Graz."
    # a Latin name opening a sentence in a script without capitals stays as written
    assert statements.tidy("mainブランチには絶対に直接pushしないで") == "mainブランチには絶対に直接pushしないで。"
    assert statements.tidy("npm 대신 항상 pnpm을 써 줘") == "npm 대신 항상 pnpm을 써 줘."


def test_every_language_of_the_issue_has_a_data_file():
    assert {"en", "de", "fr", "es", "pt", "zh", "ja", "ko"} <= read_languages()


def test_a_speaker_adds_a_language_by_adding_its_file(tmp_path, monkeypatch):
    italian = """# What the built-in engine reads in Italian.
code = "it"
name = "Italian"
match = "words"

[rule]
cues = ["sempre", "mai"]
subjects = ["io", "il", "la"]

[person]
opening = 3
identity = ["abito a", "mi chiamo"]
"""
    (tmp_path / "lang-it.toml").write_text(italian, encoding="utf-8")
    monkeypatch.setattr(lists, "DATA", tmp_path)
    caches = (lists.language_codes, lists.language_file, statements.read_languages, statements.language,
              statements.kind_of)
    for cached in caches:
        cached.cache_clear()
    try:
        assert "it" in read_languages()
        assert statement("Rispondi sempre in italiano.", language("it")).kind == RULE
        assert statement("Abito a Torino.", language("it")).kind == PERSON
        assert statement("Il build è sempre lento.", language("it")) is None
    finally:
        monkeypatch.undo()
        for cached in caches:
            cached.cache_clear()
    assert lists.DATA.joinpath("lang-de.toml").is_file()


@pytest.mark.parametrize(("text", "parts"), [
    ("In Go files, always run gofmt.", ["In Go files, always run gofmt."]),
    ("When you write commit messages, never add emojis.", ["When you write commit messages, never add emojis."]),
    ("I live in Ghent, and always answer in Dutch.", ["I live in Ghent", "always answer in Dutch."]),
])
def test_a_rules_setting_stays_with_the_rule(text, parts):
    """Cut from its setting, "never add emojis" would hold everywhere."""
    assert list(sentences(text)) == parts


def test_the_lists_of_a_message_are_its_lists_of_statements():
    """A list of statements is filed whole or not at all; a list of fragments is one text already."""
    text = ("Before you merge:\n1. Always rebase.\n2. Keep commits small.\n\nOur stack:\n- Django\n- Postgres\n\n"
            "- Never push to main.\n- Ask before deleting branches.")
    assert statement_lists(text) == [["Always rebase.", "Keep commits small."],
                           ["Never push to main.", "Ask before deleting branches."]]


@pytest.mark.parametrize(("code", "text", "items"), [
    ("fr", "Règles :\n- N'utilise jamais var.\n- Utilise toujours const.",
     ["Règles :", "N'utilise jamais var.", "Utilise toujours const."]),
    ("ja", "ルール:\n- varは使わないでください。\n- セミコロンは必ず付けてください。",
     ["ルール:", "varは使わないでください。", "セミコロンは必ず付けてください。"]),
    ("en", "Our stack:\n- Python.\n- Postgres.", ["Our stack: Python, Postgres"]),  # one word each: fragments
])
def test_list_items_closed_by_a_full_stop_are_statements_in_any_language(code, text, items):
    """The French and Japanese items were a list's fragments, joined with their label into one line."""
    assert list(sentences(text, code)) == items


@pytest.mark.parametrize(("code", "sentence"), [
    ("zh", "不要删除任何分支，除非我让你这么做。"),  # "… unless I tell you to do so"
    ("de", "Lösche niemals Branches, es sei denn, ich sage dir das."),
    ("es", "Nunca borres ramas, a menos que yo te diga esto."),
])
def test_a_this_after_unless_is_the_rules_own_act_not_one_piece_of_work(code, sentence):
    found = statement(sentence, language(code))
    assert found is not None and found.kind == RULE
    scoped = {"zh": "这个分支不要删除。", "de": "Lösche diesen Branch nicht.", "es": "No borres esta rama."}[code]
    assert statement(scoped, language(code)) is None


@pytest.mark.parametrize(("code", "rule", "errand"), [
    ("fr", "Ne modifie jamais le fichier .env.", "Modifie le fichier .env."),
    ("es", "No toques nunca el archivo .env.", "Toca el archivo .env."),
    ("de", "Ändere niemals die Datei settings.toml.", "Ändere die Datei settings.toml."),
    ("pt", "Sempre atualize o arquivo CHANGELOG.", "Atualize o arquivo CHANGELOG."),
    ("es", "Siempre añade un test que reproduzca el bug.", "Añade un test que reproduzca el bug."),
])
def test_the_work_at_hand_said_always_or_never_of_is_what_a_rule_is_about(code, rule, errand):
    found = statement(rule, language(code))
    assert found is not None and found.kind == RULE
    assert statement(errand, language(code)) is None  # the file, the bug: this task's


# The language the person wants answers in, asked without "always": how the agent speaks to them from then on.
REPLY_LANGUAGE = [
    ("en", "Please answer in Spanish."),
    ("en", "Talk to me in French."),
    ("de", "Schreibe alles auf Deutsch."),
    ("de", "Antworte mir bitte auf Englisch."),
    ("fr", "Réponds-moi en français, s'il te plaît."),
    ("es", "Contéstame en español."),
    ("pt", "Responda em português."),
    ("zh", "中文对话"),
    ("zh", "请用中文回复。"),
    ("ja", "日本語で回答してください。"),
    ("ko", "한글로 답변해줘."),
    ("ko", "모든 답변은 한국어로 해주세요."),
    ("vi", "Trả lời bằng tiếng Việt nhé."),
]


# How the person wants every answer to read: a verb of answering next to a manner (`reply.manners`), the whole
# request; not an answer spoken of, nor one answer asked for now.
REPLY_MANNER = [("de", "Antworte kurz und knapp."), ("de", "Halte deine Antworten kurz."),
                ("fr", "Réponds de manière concise."), ("es", "Responde de forma breve."),
                ("pt", "Responda de forma curta."), ("zh", "回答要简洁。"), ("zh", "请简短回答。"),
                ("ja", "回答は簡潔にしてください。"), ("ja", "簡潔でお願いします。"), ("ko", "짧게 대답해 주세요."),
                ("vi", "Trả lời ngắn gọn thôi."), ("vi", "Hãy trả lời chi tiết."),
                ("de", "Antworte immer kurz: höchstens drei Sätze.")]  # a colon, and "always"


@pytest.mark.parametrize(("code", "sentence"), REPLY_MANNER)
def test_asking_for_a_manner_of_answering_is_a_standing_rule(code, sentence):
    found = statement(sentence, language(code))
    assert found is not None and (found.kind, found.text) == (RULE, sentence)


@pytest.mark.parametrize(("code", "sentence"), [
    ("de", "Antworte mir kurz, ob das geht."),  # one answer, now
    ("fr", "Réponds-moi simplement si le build passe."),
    ("zh", "简单回答一下这个问题。"),
    ("de", "Die Antwort war zu kurz."),  # an answer spoken of
    ("zh", "你的回答太简单了。"),
    ("ja", "その回答は簡潔ですね。"),
    ("es", "Contesta directamente a la pregunta del cliente sobre el precio."),
    # what to answer after a colon (a new user's OpenClaw chat filed "简单回答：1+1等于几。" in SOUL.md)
    ("zh", "简单回答：1+1等于几。"),
    ("zh", "请用中文回答：今天星期几"),
    ("de", "Antworte kurz: läuft der Build?"),
])
def test_one_answer_asked_for_now_or_an_answer_spoken_of_is_no_manner_rule(code, sentence):
    assert statement(sentence, language(code)) is None


@pytest.mark.parametrize(("code", "sentence"), REPLY_LANGUAGE)
def test_asking_for_answers_in_a_language_is_a_standing_rule(code, sentence):
    found = statement(sentence, language(code))
    assert found is not None, sentence
    assert (found.kind, found.section, found.text) == (RULE, "Rules", statements.tidy(sentence))


@pytest.mark.parametrize(("code", "sentence"), [
    ("en", "Can you answer in Spanish?"),  # a question
    ("en", "Reply to the email from the landlord in German."),  # one errand, its object between
    ("en", "Your answer in Spanish had a typo."),  # an answer spoken of, not asked for
    ("en", "Translate the readme into French."),
    ("de", "Ich antworte meinen Kunden auf Englisch."),  # the person's own habit
    ("de", "Übersetze die Datei auf Englisch."),
    ("zh", "给这个函数加中文注释。"),  # this function: one task
    ("ja", "このメールを英語で書いてください。"),  # this mail, and writing it is no answer
    ("ko", "그는 영어로 대답했어요."),  # someone else
    ("es", "Mi jefe me contesta en inglés."),
])
def test_a_language_named_beside_an_errand_or_a_report_is_no_rule(code, sentence):
    assert statement(sentence, language(code)) is None


@pytest.mark.parametrize(("code", "sentence"), [
    ("ja", "今後のための記録とします。"),  # "I'll keep it as a record for the future"
    ("ja", "今後の予定をまとめてください。"),  # "sum up the plans ahead"
    ("zh", "整理一下今后的计划。"),  # "sort out the plans ahead"
])
def test_from_now_on_used_as_future_of_a_noun_is_no_standing_rule(code, sentence):
    """"今後の" and "今后的" name what lies ahead; only "今後は" / "今后请…" make a request last."""
    assert statement(sentence, language(code)) is None


@pytest.mark.parametrize(("code", "sentence"), [
    ("zh", "以后请多多关照！"),  # a greeting's courtesy: "please look after me from now on"
    ("ko", "앞으로 잘 부탁드려요!"),
    ("ko", "앞으로 어떻게 해야 할지 모르겠어요."),  # "I don't know what to do from now on"
    ("es", "De ahora en adelante todo va a ser más fácil con esto."),  # what will be, foretold
    ("pt", "A partir de agora vai ser bem mais fácil."),
    ("fr", "Désormais ça va être beaucoup plus simple."),
    ("de", "Ab jetzt wird's spannend, der Launch ist morgen."),
])
def test_from_now_on_before_a_courtesy_or_a_forecast_is_no_standing_rule(code, sentence):
    """Found by a fresh probe: each was filed in SOUL.md as a rule and its message consumed."""
    assert statement(sentence, language(code)) is None


# "My <detail> is <value>": one of the person's details (data/personal-keys.txt) given its value, in each language
# with `person.mine` and `person.is` lists; a word of the moment or a question keeps it out, and so does a thing
# that is no detail of theirs ("my code").
MY_DETAIL = [
    ("de", "Meine E-Mail ist max@example.com."),
    ("de", "Mein GitHub-Name ist maxdev."),
    ("de", "Meine Telefonnummer ist +49 170 0000000."),
    ("de", "Mein Wohnort ist Leipzig."),
    ("fr", "Mon e-mail est marie@example.com."),
    ("fr", "Mon pseudo GitHub est mariedev."),
    ("fr", "Mon anniversaire est le 3 mai."),
    ("fr", "Mon adresse e-mail est marie@example.com."),
    ("es", "Mi correo es lucia@example.com."),
    ("es", "Mi cumpleaños es el 3 de mayo."),
    ("es", "Mi usuario de GitHub es luciadev."),
    ("pt", "Meu e-mail é joao@example.com."),
    ("pt", "Meu aniversário é dia 3 de maio."),
    ("pt", "Minha empresa é a Acme."),
    ("zh", "我的邮箱是 wang@example.com。"),
    ("zh", "我的生日是5月3日。"),
    ("zh", "我的 GitHub 用户名是 leilei。"),
    ("zh", "我的手机号是 13800000000。"),
    ("ja", "私のメールアドレスは taro@example.com です。"),
    ("ja", "僕の誕生日は5月3日です。"),
    ("ko", "제 이메일은 minsu@example.com 입니다."),
    ("ko", "내 생일은 5월 3일이야."),
]


@pytest.mark.parametrize(("code", "sentence"), MY_DETAIL)
def test_my_detail_is_its_value_is_about_the_person(code, sentence):
    found = statement(sentence, language(code))
    assert found is not None, sentence
    assert (found.kind, found.section, found.text) == (PERSON, "Identity", sentence)
    assert kind_of(sentence, code).kind == PERSON


@pytest.mark.parametrize(("code", "sentence"), [
    ("de", "Mein Code ist kaputt."),  # no detail of theirs
    ("de", "Meine E-Mail ist gerade voll."),  # a state of the moment
    ("de", "Ist meine E-Mail angekommen?"),
    ("de", "Meine E-Mail hat sich geändert."),  # no value given
    ("fr", "Mon ordinateur est lent."),
    ("fr", "Mon e-mail est-il arrivé ?"),
    ("es", "Mi código no funciona."),
    ("es", "¿Mi correo es correcto?"),
    ("pt", "Meu código está quebrado."),
    ("zh", "我的代码有问题。"),
    ("zh", "我的邮箱是不是满了"),  # "is my mailbox full": a question without its mark
    ("zh", "我的电脑是新买的。"),
    ("ja", "私のコードはまだ動きません。"),
    ("ko", "제 코드는 안 돌아가요."),
    ("de", "Meine E-Mail ist"),  # no value
])
def test_what_is_no_detail_of_the_person_given_a_value_is_none(code, sentence):
    assert statement(sentence, language(code)) is None, sentence


# "Remember that …": what follows is filed as what it is (about the person, a rule), or as a fact of the project
# when it opens with the person's, the team's or a thing's own words (`remember.opens`); in the whole sentence.
REMEMBER_THAT = [
    ("de", "Bitte merk dir, dass mein Geburtstag am 3. Mai ist.", PERSON),
    ("de", "Merk dir, dass der Staging-Server in Frankfurt steht.", FACT),
    ("de", "Denk daran, dass du immer auf Deutsch antwortest.", RULE),
    ("fr", "Retiens que je suis allergique aux noix.", PERSON),
    ("fr", "N'oublie pas que le serveur de test est chez OVH.", FACT),
    ("es", "Recuerda que mi cumpleaños es el 3 de mayo.", PERSON),
    ("es", "Ten en cuenta que el servidor de pruebas está en Madrid.", FACT),
    ("pt", "Lembre-se de que meu aniversário é dia 3 de maio.", PERSON),
    ("pt", "Não esqueça que o servidor de testes fica em São Paulo.", FACT),
    ("de", "Denk daran, dass dieses Projekt auf Hetzner läuft.", FACT),  # "this project" lasts
    ("fr", "Retiens que ce projet est déployé sur Fly.io.", FACT),
    ("zh", "请记住我的生日是5月3日。", PERSON),
    ("de", "Merk dir: der Staging-Server heißt stg-01.", FACT),  # a colon says "that" too
    ("de", "Merk dir: die Tests laufen mit pytest.", FACT),  # a reminder of a fact, not a rule
    ("ko", "스테이징 DB는 RDS에 있다는 거 기억해 둬.", FACT),  # the clause before the reminder states a fact
    ("zh", "记住，测试服务器的地址是 test.example.cn。", FACT),  # a pause after 记住 sets the clause apart
    ("fr", "N'oublie pas : notre API tourne sur le port 8080.", FACT),
    ("de", "Merk dir, dass ich in Wien wohne.", PERSON),  # the person as its subject, the verb last
    ("ja", "私が大阪に住んでいることを覚えておいて。", PERSON),
    ("ko", "내가 부산에 산다는 거 기억해 줘.", PERSON),
    ("ko", "제가 야간 근무를 한다는 거 기억해 주세요.", PERSON),
    ("es", "Recuerda que yo trabajo de noche.", PERSON),
    ("de", "Merk dir, dass mein Server in Frankfurt steht.", FACT),  # theirs, but a thing of the project
    ("ja", "私のサーバーが東京にあることを覚えておいて。", FACT),
]


@pytest.mark.parametrize(("code", "sentence", "kind"), REMEMBER_THAT)
def test_what_the_person_asks_to_remember_is_filed_as_what_it_is(code, sentence, kind):
    found = statement(sentence, language(code))
    assert found is not None, sentence
    assert (found.kind, found.text) == (kind, sentence)
    assert kind_of(sentence, code).kind == kind


@pytest.mark.parametrize(("code", "sentence"), [
    ("de", "Merk dir, dass das hier nur ein Test ist."),  # this, here: one piece of work
    ("de", "Merk dir, dass er morgen kommt."),  # who "he" is, only the conversation knows
    ("de", "Erinnerst du dich, dass wir das besprochen haben?"),
    ("fr", "Retiens que c'est juste pour aujourd'hui."),
    ("fr", "N'oublie pas qu'il faut le faire demain."),
    ("es", "Recuerda que eso no funciona."),
    ("pt", "Lembre que isso é só um teste."),
    ("zh", "记住他明天来。"),
    ("zh", "记住我们的对话。"),  # "remember our conversation": a thing, no clause (Chinese has no "that")
    ("zh", "我记得我们讨论过。"),  # "I remember": the person remembering, no request
])
def test_a_remembered_clause_that_points_elsewhere_is_none(code, sentence):
    assert statement(sentence, language(code)) is None, sentence


@pytest.mark.parametrize(("sentence", "line"), [
    ('不要创建新文件，除非我告诉你这么做"', "不要创建新文件，除非我告诉你这么做。"),  # cut from a quote
    ('"Antworte immer auf Deutsch', "Antworte immer auf Deutsch."),
    ('Nenn das Projekt "Pim"', 'Nenn das Projekt "Pim".'),  # a pair stays
])
def test_a_memory_line_keeps_no_quotation_mark_left_from_a_cut_quote(sentence, line):
    assert tidy(sentence) == line


@pytest.mark.parametrize(("code", "said", "text"), [
    ("zh", "tsla10股，454价格，长线。记录一下", "tsla10股，454价格，长线。"),  # "note it down"
    ("de", "Der Staging-Server steht in Frankfurt. Notier dir das.", "Der Staging-Server steht in Frankfurt."),
    ("es", "El servidor de pruebas está en Madrid. Anótalo.", "El servidor de pruebas está en Madrid."),
])
def test_what_the_person_asks_to_note_down_is_a_fact_not_a_rule(code, said, text):
    reading = read(list(sentences(said, code)), code)
    assert [(s.kind, s.text.lower()) for s in reading.statements] == [(FACT, text.lower())] and not reading.unread


@pytest.mark.parametrize(("code", "sentence"), [
    ("es", "Ya te había dicho cómo te llamas y qué personalidad tienes."),  # a complaint, on a public transcript
    ("de", "Ich habe dir doch gesagt, wie du heißt und was du kannst."),
    ("pt", "Já te disse como você se chama e qual é a sua personalidade."),
])
def test_a_naming_cue_that_gives_no_name_names_no_agent(code, sentence):
    """The naming cue followed by a word that joins or asks speaks of the name without giving one: it was filed in
    SOUL.md as the agent's identity."""
    found = statement(sentence, language(code))
    assert found is None or found.section != "Identity", found


@pytest.mark.parametrize(("code", "sentence"), [
    ("es", "Vivo en Madrid, responde siempre en español, decidimos usar Django para el backend."),
    ("de", "Ich wohne in Graz, antworte immer auf Deutsch, wir haben beschlossen, Postgres zu nehmen."),
    ("zh", "我住在上海，以后请用中文回答，我们决定用Django。"),
])
def test_a_run_on_sentence_of_different_kinds_waits_whole(code, sentence):
    """Clauses about the person, a rule and a decision, run on with commas, were filed as one USER.md line."""
    assert statement(sentence, language(code)) is None
    assert read([sentence], code).unread


@pytest.mark.parametrize(("code", "sentence"), [
    ("es", "Vivo en Madrid, trabajo como diseñadora, me gusta el café."),  # one kind: about the person
    ("vi", "Mình muốn gọi bạn là yolo nha"),  # a name in lower case is still a name
])
def test_a_run_on_of_one_kind_and_a_lower_case_name_are_still_filed(code, sentence):
    assert statement(sentence, language(code)) is not None


def test_a_rule_announced_as_one_is_kept_without_its_announcement():
    """"帮我记住一条新规则，" ("help me remember a new rule,") was kept inside a new user's rule in SOUL.md."""
    found = statement("帮我记住一条新规则，以后每周五下午 3 点不接任何外部访客。", language("zh"))
    assert found is not None and (found.kind, found.text) == (RULE, "以后每周五下午 3 点不接任何外部访客。")
